//go:build amd64 && !purego

#include "textflag.h"

// func maxPlusRow(dst, row []float64, a float64)
TEXT ·maxPlusRow(SB), NOSPLIT, $0-56
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ row_base+24(FP), SI
	MOVSD a+48(FP), X0
	UNPCKLPD X0, X0 // broadcast a to both lanes

loop4:
	CMPQ CX, $4
	JL   loop2
	MOVUPD (SI), X1
	MOVUPD 16(SI), X3
	ADDPD  X0, X1
	ADDPD  X0, X3
	MOVUPD (DI), X2
	MOVUPD 16(DI), X4
	MAXPD  X1, X2
	MAXPD  X3, X4
	MOVUPD X2, (DI)
	MOVUPD X4, 16(DI)
	ADDQ   $32, SI
	ADDQ   $32, DI
	SUBQ   $4, CX
	JMP    loop4

loop2:
	CMPQ CX, $2
	JL   tail
	MOVUPD (SI), X1
	ADDPD  X0, X1
	MOVUPD (DI), X2
	MAXPD  X1, X2
	MOVUPD X2, (DI)
	ADDQ   $16, SI
	ADDQ   $16, DI
	SUBQ   $2, CX

tail:
	CMPQ CX, $0
	JE   done
	MOVSD (SI), X1
	ADDSD X0, X1
	MOVSD (DI), X2
	MAXSD X1, X2
	MOVSD X2, (DI)

done:
	RET
