//go:build amd64 && !purego

#include "textflag.h"

// func lanes4AVX2(w []float64, x []float32, stride int, lanes []float64)
//
// For the rows r = 0, 1, ... of x (row r starts at x[r*stride]), four at a
// time, lanes[4r+j] = sum over k < len(w) with k = j mod 4, in increasing
// k, of w[k] * float64(x[r*stride+k]): the four accumulators of dot32.
// len(w) is a multiple of 4 and len(lanes) = 4 * rows, rows a multiple of 4.
// Multiplications and additions are separate (no FMA), as in the Go code.
TEXT ·lanes4AVX2(SB), NOSPLIT, $0-80
	MOVQ w_base+0(FP), DI
	MOVQ w_len+8(FP), R10
	MOVQ x_base+24(FP), SI
	MOVQ stride+48(FP), R8
	SHLQ $2, R8
	MOVQ lanes_base+56(FP), DX
	MOVQ lanes_len+64(FP), R9
	SHRQ $2, R9

rows4:
	CMPQ R9, $4
	JLT  done
	MOVQ SI, R11
	LEAQ (SI)(R8*1), R12
	LEAQ (R12)(R8*1), R13
	LEAQ (R13)(R8*1), R14
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	XORQ AX, AX

loop:
	CMPQ AX, R10
	JGE  store
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

store:
	VMOVUPD Y0, (DX)
	VMOVUPD Y1, 32(DX)
	VMOVUPD Y2, 64(DX)
	VMOVUPD Y3, 96(DX)
	ADDQ    $128, DX
	LEAQ    (R14)(R8*1), SI
	SUBQ    $4, R9
	JMP     rows4

done:
	VZEROUPPER
	RET
