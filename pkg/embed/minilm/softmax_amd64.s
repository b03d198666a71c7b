//go:build amd64

#include "textflag.h"

// Constants of exp32 (activation.go), each repeated in all 8 lanes.
DATA expc<>+0(SB)/4, $0x3fb8aa3b // log2e
DATA expc<>+4(SB)/4, $0x3fb8aa3b
DATA expc<>+8(SB)/4, $0x3fb8aa3b
DATA expc<>+12(SB)/4, $0x3fb8aa3b
DATA expc<>+16(SB)/4, $0x3fb8aa3b
DATA expc<>+20(SB)/4, $0x3fb8aa3b
DATA expc<>+24(SB)/4, $0x3fb8aa3b
DATA expc<>+28(SB)/4, $0x3fb8aa3b
DATA expc<>+32(SB)/4, $0x3f000000 // half
DATA expc<>+36(SB)/4, $0x3f000000
DATA expc<>+40(SB)/4, $0x3f000000
DATA expc<>+44(SB)/4, $0x3f000000
DATA expc<>+48(SB)/4, $0x3f000000
DATA expc<>+52(SB)/4, $0x3f000000
DATA expc<>+56(SB)/4, $0x3f000000
DATA expc<>+60(SB)/4, $0x3f000000
DATA expc<>+64(SB)/4, $0x3f318000 // c1
DATA expc<>+68(SB)/4, $0x3f318000
DATA expc<>+72(SB)/4, $0x3f318000
DATA expc<>+76(SB)/4, $0x3f318000
DATA expc<>+80(SB)/4, $0x3f318000
DATA expc<>+84(SB)/4, $0x3f318000
DATA expc<>+88(SB)/4, $0x3f318000
DATA expc<>+92(SB)/4, $0x3f318000
DATA expc<>+96(SB)/4, $0xb95e8083 // c2
DATA expc<>+100(SB)/4, $0xb95e8083
DATA expc<>+104(SB)/4, $0xb95e8083
DATA expc<>+108(SB)/4, $0xb95e8083
DATA expc<>+112(SB)/4, $0xb95e8083
DATA expc<>+116(SB)/4, $0xb95e8083
DATA expc<>+120(SB)/4, $0xb95e8083
DATA expc<>+124(SB)/4, $0xb95e8083
DATA expc<>+128(SB)/4, $0x39506967 // p0
DATA expc<>+132(SB)/4, $0x39506967
DATA expc<>+136(SB)/4, $0x39506967
DATA expc<>+140(SB)/4, $0x39506967
DATA expc<>+144(SB)/4, $0x39506967
DATA expc<>+148(SB)/4, $0x39506967
DATA expc<>+152(SB)/4, $0x39506967
DATA expc<>+156(SB)/4, $0x39506967
DATA expc<>+160(SB)/4, $0x3ab743ce // p1
DATA expc<>+164(SB)/4, $0x3ab743ce
DATA expc<>+168(SB)/4, $0x3ab743ce
DATA expc<>+172(SB)/4, $0x3ab743ce
DATA expc<>+176(SB)/4, $0x3ab743ce
DATA expc<>+180(SB)/4, $0x3ab743ce
DATA expc<>+184(SB)/4, $0x3ab743ce
DATA expc<>+188(SB)/4, $0x3ab743ce
DATA expc<>+192(SB)/4, $0x3c088908 // p2
DATA expc<>+196(SB)/4, $0x3c088908
DATA expc<>+200(SB)/4, $0x3c088908
DATA expc<>+204(SB)/4, $0x3c088908
DATA expc<>+208(SB)/4, $0x3c088908
DATA expc<>+212(SB)/4, $0x3c088908
DATA expc<>+216(SB)/4, $0x3c088908
DATA expc<>+220(SB)/4, $0x3c088908
DATA expc<>+224(SB)/4, $0x3d2aa9c1 // p3
DATA expc<>+228(SB)/4, $0x3d2aa9c1
DATA expc<>+232(SB)/4, $0x3d2aa9c1
DATA expc<>+236(SB)/4, $0x3d2aa9c1
DATA expc<>+240(SB)/4, $0x3d2aa9c1
DATA expc<>+244(SB)/4, $0x3d2aa9c1
DATA expc<>+248(SB)/4, $0x3d2aa9c1
DATA expc<>+252(SB)/4, $0x3d2aa9c1
DATA expc<>+256(SB)/4, $0x3e2aaaaa // p4
DATA expc<>+260(SB)/4, $0x3e2aaaaa
DATA expc<>+264(SB)/4, $0x3e2aaaaa
DATA expc<>+268(SB)/4, $0x3e2aaaaa
DATA expc<>+272(SB)/4, $0x3e2aaaaa
DATA expc<>+276(SB)/4, $0x3e2aaaaa
DATA expc<>+280(SB)/4, $0x3e2aaaaa
DATA expc<>+284(SB)/4, $0x3e2aaaaa
DATA expc<>+288(SB)/4, $0x3f000000 // p5
DATA expc<>+292(SB)/4, $0x3f000000
DATA expc<>+296(SB)/4, $0x3f000000
DATA expc<>+300(SB)/4, $0x3f000000
DATA expc<>+304(SB)/4, $0x3f000000
DATA expc<>+308(SB)/4, $0x3f000000
DATA expc<>+312(SB)/4, $0x3f000000
DATA expc<>+316(SB)/4, $0x3f000000
DATA expc<>+320(SB)/4, $0x3f800000 // one
DATA expc<>+324(SB)/4, $0x3f800000
DATA expc<>+328(SB)/4, $0x3f800000
DATA expc<>+332(SB)/4, $0x3f800000
DATA expc<>+336(SB)/4, $0x3f800000
DATA expc<>+340(SB)/4, $0x3f800000
DATA expc<>+344(SB)/4, $0x3f800000
DATA expc<>+348(SB)/4, $0x3f800000
DATA expc<>+352(SB)/4, $0xc2ae999a // lo
DATA expc<>+356(SB)/4, $0xc2ae999a
DATA expc<>+360(SB)/4, $0xc2ae999a
DATA expc<>+364(SB)/4, $0xc2ae999a
DATA expc<>+368(SB)/4, $0xc2ae999a
DATA expc<>+372(SB)/4, $0xc2ae999a
DATA expc<>+376(SB)/4, $0xc2ae999a
DATA expc<>+380(SB)/4, $0xc2ae999a
DATA expc<>+384(SB)/4, $0x0000007f // bias
DATA expc<>+388(SB)/4, $0x0000007f
DATA expc<>+392(SB)/4, $0x0000007f
DATA expc<>+396(SB)/4, $0x0000007f
DATA expc<>+400(SB)/4, $0x0000007f
DATA expc<>+404(SB)/4, $0x0000007f
DATA expc<>+408(SB)/4, $0x0000007f
DATA expc<>+412(SB)/4, $0x0000007f
GLOBL expc<>(SB), RODATA|NOPTR, $416

// func softmaxRowAVX2(x *float32, n int, scale float32)
//
// x[0:n] = softmax(x[0:n]·scale), n a positive multiple of 8: a pass for
// the maximum, one for exp and its sum (exp32's algorithm in 8 lanes), one
// to normalise.
TEXT ·softmaxRowAVX2(SB), NOSPLIT, $0-20
	MOVQ x+0(FP), DI
	MOVQ n+8(FP), CX
	SHRQ $3, CX
	JZ   done

	// Maximum.
	MOVQ    DI, SI
	MOVQ    CX, DX
	VMOVUPS (SI), Y0
maxloop:
	VMAXPS (SI), Y0, Y0
	ADDQ   $32, SI
	DECQ   DX
	JNZ    maxloop
	VEXTRACTF128 $1, Y0, X1
	VMAXPS       X1, X0, X0
	VPERMILPS    $0x4E, X0, X1
	VMAXPS       X1, X0, X0
	VPERMILPS    $0xB1, X0, X1
	VMAXPS       X1, X0, X0
	VBROADCASTSS X0, Y14             // max
	VBROADCASTSS scale+16(FP), Y15   // scale

	// exp((x - max)·scale), summed in Y13.
	VXORPS Y13, Y13, Y13
	MOVQ   DI, SI
	MOVQ   CX, DX
	VMOVUPS expc<>+0(SB), Y8
	VMOVUPS expc<>+32(SB), Y9
	VMOVUPS expc<>+352(SB), Y10
	VMOVUPS expc<>+320(SB), Y11
	VMOVUPS expc<>+384(SB), Y12
exploop:
	VMOVUPS (SI), Y0
	VSUBPS  Y14, Y0, Y0
	VMULPS  Y15, Y0, Y0
	VMAXPS  Y10, Y0, Y0              // x ≥ -87.3: 2^n stays normal
	VMOVAPS Y9, Y1
	VFMADD231PS Y8, Y0, Y1           // x·log2e + 0.5
	VROUNDPS $1, Y1, Y1              // n = floor(...)
	VFNMADD231PS expc<>+64(SB), Y1, Y0   // r = x - n·ln2, in two parts
	VFNMADD231PS expc<>+96(SB), Y1, Y0
	VMULPS  Y0, Y0, Y2               // r²
	VMOVUPS expc<>+128(SB), Y3
	VFMADD213PS expc<>+160(SB), Y0, Y3
	VFMADD213PS expc<>+192(SB), Y0, Y3
	VFMADD213PS expc<>+224(SB), Y0, Y3
	VFMADD213PS expc<>+256(SB), Y0, Y3
	VFMADD213PS expc<>+288(SB), Y0, Y3
	VFMADD213PS Y0, Y2, Y3           // p·r² + r
	VADDPS  Y11, Y3, Y3              // + 1
	VCVTTPS2DQ Y1, Y1
	VPADDD  Y12, Y1, Y1
	VPSLLD  $23, Y1, Y1              // 2^n
	VMULPS  Y1, Y3, Y3
	VMOVUPS Y3, (SI)
	VADDPS  Y3, Y13, Y13
	ADDQ    $32, SI
	DECQ    DX
	JNZ     exploop

	// Normalise by the sum.
	VEXTRACTF128 $1, Y13, X1
	VADDPS       X1, X13, X0
	VPERMILPS    $0x4E, X0, X1
	VADDPS       X1, X0, X0
	VPERMILPS    $0xB1, X0, X1
	VADDPS       X1, X0, X0
	VDIVSS       X0, X11, X0         // 1/sum (X11 lanes hold 1.0)
	VBROADCASTSS X0, Y0
	MOVQ DI, SI
normloop:
	VMULPS  (SI), Y0, Y1
	VMOVUPS Y1, (SI)
	ADDQ    $32, SI
	DECQ    CX
	JNZ     normloop

done:
	VZEROUPPER
	RET
