package elementwise

// Numeric constraints used by the typed loops. Each instantiation has its own
// GC shape (distinct underlying types), so operators compile to direct
// machine instructions rather than dictionary calls.
type (
	sint interface {
		~int8 | ~int16 | ~int32 | ~int64
	}
	uint_ interface {
		~uint8 | ~uint16 | ~uint32 | ~uint64
	}
	integer interface{ sint | uint_ }
	float   interface{ ~float32 | ~float64 }
	real_   interface{ integer | float }
	cplx    interface{ ~complex64 | ~complex128 }
	number  interface{ real_ | cplx }
)
