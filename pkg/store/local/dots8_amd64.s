#include "textflag.h"

// func dotsInt8AVX2(q *int16, codes *int8, dim int, rows *int32, n int, out *int32)
//
// For each of n row indexes, sign-extends 16 codes at a time to int16
// (VPMOVSXBW) and multiply-adds them with the query into int32 lanes
// (VPMADDWD); a scalar loop takes the last dim%16.
TEXT ·dotsInt8AVX2(SB), NOSPLIT, $0-48
	MOVQ q+0(FP), R8
	MOVQ codes+8(FP), R9
	MOVQ dim+16(FP), R10
	MOVQ rows+24(FP), R11
	MOVQ n+32(FP), R12
	MOVQ out+40(FP), R13

row:
	CMPQ R12, $0
	JEQ  done
	MOVLQSX (R11), AX
	IMULQ   R10, AX
	LEAQ    (R9)(AX*1), SI
	MOVQ    R8, DI
	MOVQ    R10, CX
	VPXOR   Y0, Y0, Y0
	VPXOR   Y1, Y1, Y1

loop32:
	CMPQ      CX, $32
	JLT       loop16
	VPMOVSXBW (SI), Y2
	VPMOVSXBW 16(SI), Y3
	VPMADDWD  (DI), Y2, Y2
	VPMADDWD  32(DI), Y3, Y3
	VPADDD    Y2, Y0, Y0
	VPADDD    Y3, Y1, Y1
	ADDQ      $32, SI
	ADDQ      $64, DI
	SUBQ      $32, CX
	JMP       loop32

loop16:
	CMPQ      CX, $16
	JLT       reduce
	VPMOVSXBW (SI), Y2
	VPMADDWD  (DI), Y2, Y2
	VPADDD    Y2, Y0, Y0
	ADDQ      $16, SI
	ADDQ      $32, DI
	SUBQ      $16, CX

reduce:
	VPADDD       Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPHADDD      X0, X0, X0
	VPHADDD      X0, X0, X0
	VMOVD        X0, AX

tail:
	CMPQ    CX, $0
	JEQ     store
	MOVBLSX (SI), BX
	MOVWLSX (DI), DX
	IMULL   DX, BX
	ADDL    BX, AX
	INCQ    SI
	ADDQ    $2, DI
	DECQ    CX
	JMP     tail

store:
	MOVL AX, (R13)
	ADDQ $4, R11
	ADDQ $4, R13
	DECQ R12
	JMP  row

done:
	VZEROUPPER
	RET
