//go:build !amd64 || purego

package linalg

import "unsafe"

const fftAVX2 = false

func fftR4AVX264(x0, x1, x2, x3, y0, y1, y2, y3 unsafe.Pointer, n int, w unsafe.Pointer) {
	panic("fft: no assembly")
}

func fftR4AVX2128(x0, x1, x2, x3, y0, y1, y2, y3 unsafe.Pointer, n int, w unsafe.Pointer) {
	panic("fft: no assembly")
}

func fftR5AVX264(x, y *[5]unsafe.Pointer, n int, w unsafe.Pointer) { panic("fft: no assembly") }

func fftR5AVX2128(x, y *[5]unsafe.Pointer, n int, w unsafe.Pointer) { panic("fft: no assembly") }

func fftR2AVX264(x, y *[2]unsafe.Pointer, n int, w unsafe.Pointer) { panic("fft: no assembly") }

func fftR2AVX2128(x, y *[2]unsafe.Pointer, n int, w unsafe.Pointer) { panic("fft: no assembly") }

func fftR3AVX264(x, y *[3]unsafe.Pointer, n int, w unsafe.Pointer) { panic("fft: no assembly") }

func fftR3AVX2128(x, y *[3]unsafe.Pointer, n int, w unsafe.Pointer) { panic("fft: no assembly") }

func fftR4M1AVX264(in, out unsafe.Pointer, l, ns int, tw unsafe.Pointer) { panic("fft: no assembly") }

func fftR4M1AVX2128(in, out unsafe.Pointer, l, ns int, tw unsafe.Pointer) { panic("fft: no assembly") }
