//go:build amd64

#include "textflag.h"

// Constants of gelu (see erf32 in activation.go), each repeated in all 8 lanes.
DATA geluc<>+0(SB)/4, $0x3f3504f3 // invsqrt2 0.707106781
DATA geluc<>+4(SB)/4, $0x3f3504f3
DATA geluc<>+8(SB)/4, $0x3f3504f3
DATA geluc<>+12(SB)/4, $0x3f3504f3
DATA geluc<>+16(SB)/4, $0x3f3504f3
DATA geluc<>+20(SB)/4, $0x3f3504f3
DATA geluc<>+24(SB)/4, $0x3f3504f3
DATA geluc<>+28(SB)/4, $0x3f3504f3
DATA geluc<>+32(SB)/4, $0xc0800000 // lo -4
DATA geluc<>+36(SB)/4, $0xc0800000
DATA geluc<>+40(SB)/4, $0xc0800000
DATA geluc<>+44(SB)/4, $0xc0800000
DATA geluc<>+48(SB)/4, $0xc0800000
DATA geluc<>+52(SB)/4, $0xc0800000
DATA geluc<>+56(SB)/4, $0xc0800000
DATA geluc<>+60(SB)/4, $0xc0800000
DATA geluc<>+64(SB)/4, $0x40800000 // hi 4
DATA geluc<>+68(SB)/4, $0x40800000
DATA geluc<>+72(SB)/4, $0x40800000
DATA geluc<>+76(SB)/4, $0x40800000
DATA geluc<>+80(SB)/4, $0x40800000
DATA geluc<>+84(SB)/4, $0x40800000
DATA geluc<>+88(SB)/4, $0x40800000
DATA geluc<>+92(SB)/4, $0x40800000
DATA geluc<>+96(SB)/4, $0x3f000000 // half 0.5
DATA geluc<>+100(SB)/4, $0x3f000000
DATA geluc<>+104(SB)/4, $0x3f000000
DATA geluc<>+108(SB)/4, $0x3f000000
DATA geluc<>+112(SB)/4, $0x3f000000
DATA geluc<>+116(SB)/4, $0x3f000000
DATA geluc<>+120(SB)/4, $0x3f000000
DATA geluc<>+124(SB)/4, $0x3f000000
DATA geluc<>+128(SB)/4, $0x3f800000 // one 1
DATA geluc<>+132(SB)/4, $0x3f800000
DATA geluc<>+136(SB)/4, $0x3f800000
DATA geluc<>+140(SB)/4, $0x3f800000
DATA geluc<>+144(SB)/4, $0x3f800000
DATA geluc<>+148(SB)/4, $0x3f800000
DATA geluc<>+152(SB)/4, $0x3f800000
DATA geluc<>+156(SB)/4, $0x3f800000
DATA geluc<>+160(SB)/4, $0xaf95df0b // a13 -2.72614226e-10
DATA geluc<>+164(SB)/4, $0xaf95df0b
DATA geluc<>+168(SB)/4, $0xaf95df0b
DATA geluc<>+172(SB)/4, $0xaf95df0b
DATA geluc<>+176(SB)/4, $0xaf95df0b
DATA geluc<>+180(SB)/4, $0xaf95df0b
DATA geluc<>+184(SB)/4, $0xaf95df0b
DATA geluc<>+188(SB)/4, $0xaf95df0b
DATA geluc<>+192(SB)/4, $0x32edffee // a11 2.77068142e-08
DATA geluc<>+196(SB)/4, $0x32edffee
DATA geluc<>+200(SB)/4, $0x32edffee
DATA geluc<>+204(SB)/4, $0x32edffee
DATA geluc<>+208(SB)/4, $0x32edffee
DATA geluc<>+212(SB)/4, $0x32edffee
DATA geluc<>+216(SB)/4, $0x32edffee
DATA geluc<>+220(SB)/4, $0x32edffee
DATA geluc<>+224(SB)/4, $0xb60cff51 // a9 -2.10102402e-06
DATA geluc<>+228(SB)/4, $0xb60cff51
DATA geluc<>+232(SB)/4, $0xb60cff51
DATA geluc<>+236(SB)/4, $0xb60cff51
DATA geluc<>+240(SB)/4, $0xb60cff51
DATA geluc<>+244(SB)/4, $0xb60cff51
DATA geluc<>+248(SB)/4, $0xb60cff51
DATA geluc<>+252(SB)/4, $0xb60cff51
DATA geluc<>+256(SB)/4, $0xb86ec2d2 // a7 -5.69250639e-05
DATA geluc<>+260(SB)/4, $0xb86ec2d2
DATA geluc<>+264(SB)/4, $0xb86ec2d2
DATA geluc<>+268(SB)/4, $0xb86ec2d2
DATA geluc<>+272(SB)/4, $0xb86ec2d2
DATA geluc<>+276(SB)/4, $0xb86ec2d2
DATA geluc<>+280(SB)/4, $0xb86ec2d2
DATA geluc<>+284(SB)/4, $0xb86ec2d2
DATA geluc<>+288(SB)/4, $0xba40ac63 // a5 -0.00073499063
DATA geluc<>+292(SB)/4, $0xba40ac63
DATA geluc<>+296(SB)/4, $0xba40ac63
DATA geluc<>+300(SB)/4, $0xba40ac63
DATA geluc<>+304(SB)/4, $0xba40ac63
DATA geluc<>+308(SB)/4, $0xba40ac63
DATA geluc<>+312(SB)/4, $0xba40ac63
DATA geluc<>+316(SB)/4, $0xba40ac63
DATA geluc<>+320(SB)/4, $0xbb41a1f6 // a3 -0.00295459981
DATA geluc<>+324(SB)/4, $0xbb41a1f6
DATA geluc<>+328(SB)/4, $0xbb41a1f6
DATA geluc<>+332(SB)/4, $0xbb41a1f6
DATA geluc<>+336(SB)/4, $0xbb41a1f6
DATA geluc<>+340(SB)/4, $0xbb41a1f6
DATA geluc<>+344(SB)/4, $0xbb41a1f6
DATA geluc<>+348(SB)/4, $0xbb41a1f6
DATA geluc<>+352(SB)/4, $0xbc83dbd4 // a1 -0.0160960333
DATA geluc<>+356(SB)/4, $0xbc83dbd4
DATA geluc<>+360(SB)/4, $0xbc83dbd4
DATA geluc<>+364(SB)/4, $0xbc83dbd4
DATA geluc<>+368(SB)/4, $0xbc83dbd4
DATA geluc<>+372(SB)/4, $0xbc83dbd4
DATA geluc<>+376(SB)/4, $0xbc83dbd4
DATA geluc<>+380(SB)/4, $0xbc83dbd4
DATA geluc<>+384(SB)/4, $0xb77460cd // b8 -1.45660718e-05
DATA geluc<>+388(SB)/4, $0xb77460cd
DATA geluc<>+392(SB)/4, $0xb77460cd
DATA geluc<>+396(SB)/4, $0xb77460cd
DATA geluc<>+400(SB)/4, $0xb77460cd
DATA geluc<>+404(SB)/4, $0xb77460cd
DATA geluc<>+408(SB)/4, $0xb77460cd
DATA geluc<>+412(SB)/4, $0xb77460cd
DATA geluc<>+416(SB)/4, $0xb95fbd29 // b6 -0.000213374055
DATA geluc<>+420(SB)/4, $0xb95fbd29
DATA geluc<>+424(SB)/4, $0xb95fbd29
DATA geluc<>+428(SB)/4, $0xb95fbd29
DATA geluc<>+432(SB)/4, $0xb95fbd29
DATA geluc<>+436(SB)/4, $0xb95fbd29
DATA geluc<>+440(SB)/4, $0xb95fbd29
DATA geluc<>+444(SB)/4, $0xb95fbd29
DATA geluc<>+448(SB)/4, $0xbadc924e // b4 -0.00168282697
DATA geluc<>+452(SB)/4, $0xbadc924e
DATA geluc<>+456(SB)/4, $0xbadc924e
DATA geluc<>+460(SB)/4, $0xbadc924e
DATA geluc<>+464(SB)/4, $0xbadc924e
DATA geluc<>+468(SB)/4, $0xbadc924e
DATA geluc<>+472(SB)/4, $0xbadc924e
DATA geluc<>+476(SB)/4, $0xbadc924e
DATA geluc<>+480(SB)/4, $0xbbf19bf8 // b2 -0.00737332917
DATA geluc<>+484(SB)/4, $0xbbf19bf8
DATA geluc<>+488(SB)/4, $0xbbf19bf8
DATA geluc<>+492(SB)/4, $0xbbf19bf8
DATA geluc<>+496(SB)/4, $0xbbf19bf8
DATA geluc<>+500(SB)/4, $0xbbf19bf8
DATA geluc<>+504(SB)/4, $0xbbf19bf8
DATA geluc<>+508(SB)/4, $0xbbf19bf8
DATA geluc<>+512(SB)/4, $0xbc69b6a7 // b0 -0.0142647391
DATA geluc<>+516(SB)/4, $0xbc69b6a7
DATA geluc<>+520(SB)/4, $0xbc69b6a7
DATA geluc<>+524(SB)/4, $0xbc69b6a7
DATA geluc<>+528(SB)/4, $0xbc69b6a7
DATA geluc<>+532(SB)/4, $0xbc69b6a7
DATA geluc<>+536(SB)/4, $0xbc69b6a7
DATA geluc<>+540(SB)/4, $0xbc69b6a7
GLOBL geluc<>(SB), RODATA|NOPTR, $544

// func geluRowAVX2(x *float32, bias *float32, n int)
//
// x[i] = GELU(x[i] + bias[i]) for i < n rounded down to a multiple of 8,
// 8 lanes at a time, with the same rational erf approximation as erf32.
TEXT ·geluRowAVX2(SB), NOSPLIT, $0-24
	MOVQ x+0(FP), DI
	MOVQ bias+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $3, CX
	JZ   done
	VMOVUPS geluc<>+0(SB), Y8
	VMOVUPS geluc<>+32(SB), Y9
	VMOVUPS geluc<>+64(SB), Y10
	VMOVUPS geluc<>+96(SB), Y11
	VMOVUPS geluc<>+128(SB), Y12

loop:
	VMOVUPS (DI), Y0
	VADDPS  (SI), Y0, Y0
	VMULPS  Y8, Y0, Y1
	VMAXPS  Y9, Y1, Y1
	VMINPS  Y10, Y1, Y1
	VMULPS  Y1, Y1, Y2
	VMOVUPS geluc<>+160(SB), Y3
	VFMADD213PS geluc<>+192(SB), Y2, Y3
	VFMADD213PS geluc<>+224(SB), Y2, Y3
	VFMADD213PS geluc<>+256(SB), Y2, Y3
	VFMADD213PS geluc<>+288(SB), Y2, Y3
	VFMADD213PS geluc<>+320(SB), Y2, Y3
	VFMADD213PS geluc<>+352(SB), Y2, Y3
	VMULPS  Y1, Y3, Y3
	VMOVUPS geluc<>+384(SB), Y4
	VFMADD213PS geluc<>+416(SB), Y2, Y4
	VFMADD213PS geluc<>+448(SB), Y2, Y4
	VFMADD213PS geluc<>+480(SB), Y2, Y4
	VFMADD213PS geluc<>+512(SB), Y2, Y4
	VDIVPS  Y4, Y3, Y3
	VADDPS  Y12, Y3, Y3
	VMULPS  Y11, Y0, Y0
	VMULPS  Y3, Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, DI
	ADDQ    $32, SI
	DECQ    CX
	JNZ     loop

done:
	VZEROUPPER
	RET
