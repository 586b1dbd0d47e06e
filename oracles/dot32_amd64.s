//go:build amd64 && !purego

#include "textflag.h"

// PREFETCH is how far ahead (in bytes) each row's stream is prefetched: on
// features that are not in the cache (an oracle call meets each image's
// features again only after all the other images'), the hardware
// prefetcher alone leaves the kernel waiting for memory. 12 kB measured
// best of 0.5, 2, 6, 12 and 24 kB (see BenchmarkHorsesScore).
#define PREFETCH 12288

// func dotRows4AVX2(w []float64, x []float32, stride int, out []float64)
//
// out[r] = dot32(w, x[r*stride : r*stride+len(w)]) for every r < len(out),
// bit for bit, four rows at a time: each row's four accumulators of dot32
// (lane j sums w[k] * float64(x[k]) over k = j mod 4, k < len(w) &^ 3, in
// increasing k) in the four lanes of one register; then the four registers
// are transposed into one register per accumulator (lane = row), the tail
// k >= len(w) &^ 3 is added to the first accumulator in increasing k, and
// out = (a0 + a1) + (a2 + a3) is stored for the four rows at once. When
// len(out) is not a multiple of 4 the last group is the last four rows
// (computed again, to the same bits). len(w) >= 4 and len(out) >= 4; every
// row lies inside x. Multiplications and additions are separate (no FMA),
// as in the Go code.
TEXT ·dotRows4AVX2(SB), NOSPLIT, $0-80
	MOVQ w_base+0(FP), DI
	MOVQ w_len+8(FP), R10
	MOVQ x_base+24(FP), SI
	MOVQ stride+48(FP), R8
	SHLQ $2, R8
	MOVQ out_base+56(FP), DX
	MOVQ out_len+64(FP), R9
	MOVQ R10, BX
	ANDQ $-4, BX
	XORQ CX, CX

group:
	// The group starts at row min(CX, rows-4).
	MOVQ R9, AX
	SUBQ $4, AX
	CMPQ CX, AX
	JLE  rows
	MOVQ AX, CX

rows:
	MOVQ  CX, R11
	IMULQ R8, R11
	ADDQ  SI, R11
	LEAQ  (R11)(R8*1), R12
	LEAQ  (R12)(R8*1), R13
	LEAQ  (R13)(R8*1), R14
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	XORQ AX, AX
	MOVQ BX, R10
	ANDQ $-16, R10

loop16:
	// Sixteen features of the four rows: prefetch each row's stream
	// PREFETCH bytes ahead (one cache line of each), then four steps of
	// four, in the order of the loop below.
	CMPQ       AX, R10
	JGE        loop
	PREFETCHT0 PREFETCH(R11)(AX*4)
	PREFETCHT0 PREFETCH(R12)(AX*4)
	PREFETCHT0 PREFETCH(R13)(AX*4)
	PREFETCHT0 PREFETCH(R14)(AX*4)
	VMOVUPD   (DI)(AX*8), Y8
	VCVTPS2PD (R11)(AX*4), Y4
	VCVTPS2PD (R12)(AX*4), Y5
	VCVTPS2PD (R13)(AX*4), Y6
	VCVTPS2PD (R14)(AX*4), Y7
	VMULPD    Y8, Y4, Y4
	VMULPD    Y8, Y5, Y5
	VMULPD    Y8, Y6, Y6
	VMULPD    Y8, Y7, Y7
	VADDPD    Y4, Y0, Y0
	VADDPD    Y5, Y1, Y1
	VADDPD    Y6, Y2, Y2
	VADDPD    Y7, Y3, Y3
	VMOVUPD   32(DI)(AX*8), Y8
	VCVTPS2PD 16(R11)(AX*4), Y4
	VCVTPS2PD 16(R12)(AX*4), Y5
	VCVTPS2PD 16(R13)(AX*4), Y6
	VCVTPS2PD 16(R14)(AX*4), Y7
	VMULPD    Y8, Y4, Y4
	VMULPD    Y8, Y5, Y5
	VMULPD    Y8, Y6, Y6
	VMULPD    Y8, Y7, Y7
	VADDPD    Y4, Y0, Y0
	VADDPD    Y5, Y1, Y1
	VADDPD    Y6, Y2, Y2
	VADDPD    Y7, Y3, Y3
	VMOVUPD   64(DI)(AX*8), Y8
	VCVTPS2PD 32(R11)(AX*4), Y4
	VCVTPS2PD 32(R12)(AX*4), Y5
	VCVTPS2PD 32(R13)(AX*4), Y6
	VCVTPS2PD 32(R14)(AX*4), Y7
	VMULPD    Y8, Y4, Y4
	VMULPD    Y8, Y5, Y5
	VMULPD    Y8, Y6, Y6
	VMULPD    Y8, Y7, Y7
	VADDPD    Y4, Y0, Y0
	VADDPD    Y5, Y1, Y1
	VADDPD    Y6, Y2, Y2
	VADDPD    Y7, Y3, Y3
	VMOVUPD   96(DI)(AX*8), Y8
	VCVTPS2PD 48(R11)(AX*4), Y4
	VCVTPS2PD 48(R12)(AX*4), Y5
	VCVTPS2PD 48(R13)(AX*4), Y6
	VCVTPS2PD 48(R14)(AX*4), Y7
	VMULPD    Y8, Y4, Y4
	VMULPD    Y8, Y5, Y5
	VMULPD    Y8, Y6, Y6
	VMULPD    Y8, Y7, Y7
	VADDPD    Y4, Y0, Y0
	VADDPD    Y5, Y1, Y1
	VADDPD    Y6, Y2, Y2
	VADDPD    Y7, Y3, Y3
	ADDQ      $16, AX
	JMP       loop16

loop:
	CMPQ AX, BX
	JGE  transpose
	VMOVUPD   (DI)(AX*8), Y8
	VCVTPS2PD (R11)(AX*4), Y4
	VCVTPS2PD (R12)(AX*4), Y5
	VCVTPS2PD (R13)(AX*4), Y6
	VCVTPS2PD (R14)(AX*4), Y7
	VMULPD    Y8, Y4, Y4
	VMULPD    Y8, Y5, Y5
	VMULPD    Y8, Y6, Y6
	VMULPD    Y8, Y7, Y7
	VADDPD    Y4, Y0, Y0
	VADDPD    Y5, Y1, Y1
	VADDPD    Y6, Y2, Y2
	VADDPD    Y7, Y3, Y3
	ADDQ      $4, AX
	JMP       loop

transpose:
	MOVQ w_len+8(FP), R10
	// Yr holds the accumulators of row r; make Yj hold accumulator j of
	// the four rows.
	VUNPCKLPD  Y1, Y0, Y4
	VUNPCKHPD  Y1, Y0, Y5
	VUNPCKLPD  Y3, Y2, Y6
	VUNPCKHPD  Y3, Y2, Y7
	VPERM2F128 $0x20, Y6, Y4, Y0
	VPERM2F128 $0x20, Y7, Y5, Y1
	VPERM2F128 $0x31, Y6, Y4, Y2
	VPERM2F128 $0x31, Y7, Y5, Y3

tail:
	CMPQ AX, R10
	JGE  combine
	VMOVSS       (R11)(AX*4), X4
	VINSERTPS    $0x10, (R12)(AX*4), X4, X4
	VINSERTPS    $0x20, (R13)(AX*4), X4, X4
	VINSERTPS    $0x30, (R14)(AX*4), X4, X4
	VCVTPS2PD    X4, Y4
	VBROADCASTSD (DI)(AX*8), Y5
	VMULPD       Y5, Y4, Y4
	VADDPD       Y4, Y0, Y0
	INCQ         AX
	JMP          tail

combine:
	VADDPD  Y1, Y0, Y0
	VADDPD  Y3, Y2, Y2
	VADDPD  Y2, Y0, Y0
	VMOVUPD Y0, (DX)(CX*8)
	ADDQ    $4, CX
	CMPQ    CX, R9
	JLT     group
	VZEROUPPER
	RET
