//go:build amd64

#include "textflag.h"

// func quantizeRow16AVX2(src *float32, dst *int16, n int) float32
//
// Returns hi = max |src[i]| and, when hi > 0, sets dst[i] to src[i]·8191/hi (actMax)
// rounded to the nearest integer (ties to even). n is a positive multiple
// of 16.
TEXT ·quantizeRow16AVX2(SB), NOSPLIT, $0-28
	MOVQ src+0(FP), SI
	MOVQ dst+8(FP), DI
	MOVQ n+16(FP), CX

	MOVL $0x7fffffff, AX
	MOVL AX, X15
	VPBROADCASTD X15, Y15
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	MOVQ CX, DX
	MOVQ SI, R8

absmax:
	VANDPS (R8), Y15, Y2
	VANDPS 32(R8), Y15, Y3
	VMAXPS Y2, Y0, Y0
	VMAXPS Y3, Y1, Y1
	ADDQ $64, R8
	SUBQ $16, DX
	JNZ  absmax

	VMAXPS Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VMAXPS X1, X0, X0
	VPERMILPS $0x4E, X0, X1
	VMAXPS X1, X0, X0
	VPERMILPS $0xB1, X0, X1
	VMAXPS X1, X0, X0
	VMOVSS X0, ret+24(FP)

	VXORPS X1, X1, X1
	VUCOMISS X1, X0
	JEQ  done

	MOVL $0x45fff800, AX // 8191.0, actMax
	MOVL AX, X2
	VDIVSS X0, X2, X2
	VBROADCASTSS X2, Y2

round:
	VMULPS (SI), Y2, Y3
	VMULPS 32(SI), Y2, Y4
	VCVTPS2DQ Y3, Y3
	VCVTPS2DQ Y4, Y4
	VPACKSSDW Y4, Y3, Y3
	VPERMQ $0xD8, Y3, Y3
	VMOVDQU Y3, (DI)
	ADDQ $64, SI
	ADDQ $32, DI
	SUBQ $16, CX
	JNZ  round

done:
	VZEROUPPER
	RET

// func scaleRow8AVX2(row *float32, scale *float32, n int, s float32)
//
// row[i] *= s·scale[i] for i < n, n a positive multiple of 8.
TEXT ·scaleRow8AVX2(SB), NOSPLIT, $0-28
	MOVQ row+0(FP), DI
	MOVQ scale+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS s+24(FP), Y0

loop:
	VMULPS (SI), Y0, Y1
	VMULPS (DI), Y1, Y1
	VMOVUPS Y1, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JNZ  loop

	VZEROUPPER
	RET
