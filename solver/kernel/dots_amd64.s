//go:build amd64 && !noasm && !gccgo && !safe && !purego

#include "textflag.h"

// func lanes8AVX2(x []float64, m []float64, offs []int, lanes []float64)
//
// For the rows r = 0, 1, ... of m (row r starts at m[offs[r]]), eight at a
// time, lanes[4r+j] = sum over k < len(x) with k = j mod 4, in increasing
// k, of x[k] * m[offs[r]+k]: the four accumulators of gonum's DotUnitary
// on amd64 (floats.Dot). len(x) is a multiple of 4, len(offs) a multiple
// of 8 and len(lanes) = 4 * len(offs). Multiplications and additions are
// separate (no FMA), as in DotUnitary.
TEXT ·lanes8AVX2(SB), NOSPLIT, $0-96
	MOVQ x_base+0(FP), DI
	MOVQ x_len+8(FP), R10
	SHLQ $3, R10
	MOVQ offs_base+48(FP), R13
	MOVQ offs_len+56(FP), R14

rows8:
	CMPQ R14, $8
	JLT  done
	MOVQ m_base+24(FP), R12
	MOVQ 0(R13), BX
	LEAQ (R12)(BX*8), BX
	MOVQ 8(R13), CX
	LEAQ (R12)(CX*8), CX
	MOVQ 16(R13), DX
	LEAQ (R12)(DX*8), DX
	MOVQ 24(R13), SI
	LEAQ (R12)(SI*8), SI
	MOVQ 32(R13), R8
	LEAQ (R12)(R8*8), R8
	MOVQ 40(R13), R9
	LEAQ (R12)(R9*8), R9
	MOVQ 48(R13), R11
	LEAQ (R12)(R11*8), R11
	MOVQ 56(R13), AX
	LEAQ (R12)(AX*8), R12
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	XORQ   AX, AX

loop:
	CMPQ   AX, R10
	JGE    store
	VMOVUPD (DI)(AX*1), Y8
	VMULPD  (BX)(AX*1), Y8, Y9
	VMULPD  (CX)(AX*1), Y8, Y10
	VMULPD  (DX)(AX*1), Y8, Y11
	VMULPD  (SI)(AX*1), Y8, Y12
	VMULPD  (R8)(AX*1), Y8, Y13
	VMULPD  (R9)(AX*1), Y8, Y14
	VMULPD  (R11)(AX*1), Y8, Y15
	VADDPD  Y9, Y0, Y0
	VADDPD  Y10, Y1, Y1
	VADDPD  Y11, Y2, Y2
	VADDPD  Y12, Y3, Y3
	VADDPD  Y13, Y4, Y4
	VADDPD  Y14, Y5, Y5
	VADDPD  Y15, Y6, Y6
	VMULPD  (R12)(AX*1), Y8, Y9
	VADDPD  Y9, Y7, Y7
	ADDQ    $32, AX
	JMP     loop

store:
	MOVQ    offs_len+56(FP), BX
	SUBQ    R14, BX
	SHLQ    $5, BX
	ADDQ    lanes_base+72(FP), BX
	VMOVUPD Y0, (BX)
	VMOVUPD Y1, 32(BX)
	VMOVUPD Y2, 64(BX)
	VMOVUPD Y3, 96(BX)
	VMOVUPD Y4, 128(BX)
	VMOVUPD Y5, 160(BX)
	VMOVUPD Y6, 192(BX)
	VMOVUPD Y7, 224(BX)
	ADDQ    $64, R13
	SUBQ    $8, R14
	JMP     rows8

done:
	VZEROUPPER
	RET
