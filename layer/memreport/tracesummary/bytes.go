package tracesummary

import (
	"math"
	"math/big"
	"math/bits"
)

// Bytes is an exact unsigned 128-bit sum of byte counts: totals of a trace
// never wrap or saturate silently (100,000 failed allocations of 2^62 bytes
// sum to 2^78.6). JSON writes it as a plain number of as many digits as it
// needs; Uint64 says whether it fits in 64 bits.
type Bytes struct{ hi, lo uint64 }

// BytesOf is n as Bytes.
func BytesOf(n uint64) Bytes { return Bytes{lo: n} }

// Add returns b + n.
func (b Bytes) Add(n uint64) Bytes {
	lo, c := bits.Add64(b.lo, n, 0)
	return Bytes{b.hi + c, lo}
}

// Plus returns b + x.
func (b Bytes) Plus(x Bytes) Bytes {
	lo, c := bits.Add64(b.lo, x.lo, 0)
	return Bytes{b.hi + x.hi + c, lo}
}

// Minus returns b - x, 0 when x is larger.
func (b Bytes) Minus(x Bytes) Bytes {
	if b.Less(x) {
		return Bytes{}
	}
	lo, c := bits.Sub64(b.lo, x.lo, 0)
	return Bytes{b.hi - x.hi - c, lo}
}

// Less reports b < x.
func (b Bytes) Less(x Bytes) bool { return b.hi < x.hi || b.hi == x.hi && b.lo < x.lo }

// Uint64 is b when it fits in 64 bits (ok), else math.MaxUint64.
func (b Bytes) Uint64() (n uint64, ok bool) {
	if b.hi != 0 {
		return math.MaxUint64, false
	}
	return b.lo, true
}

// Int64 is b, saturating at math.MaxInt64 (the counters' range).
func (b Bytes) Int64() int64 {
	if n, ok := b.Uint64(); ok && n <= math.MaxInt64 {
		return int64(n)
	}
	return math.MaxInt64
}

func (b Bytes) String() string {
	if b.hi == 0 {
		return new(big.Int).SetUint64(b.lo).String()
	}
	x := new(big.Int).SetUint64(b.hi)
	return x.Lsh(x, 64).Or(x, new(big.Int).SetUint64(b.lo)).String()
}

// MarshalJSON writes b as a JSON number, exact.
func (b Bytes) MarshalJSON() ([]byte, error) { return []byte(b.String()), nil }

// UnmarshalJSON reads a JSON number below 2^128.
func (b *Bytes) UnmarshalJSON(data []byte) error {
	x, ok := new(big.Int).SetString(string(data), 10)
	if !ok || x.Sign() < 0 || x.BitLen() > 128 {
		return &jsonBytesError{string(data)}
	}
	b.lo = new(big.Int).And(x, new(big.Int).SetUint64(math.MaxUint64)).Uint64()
	b.hi = new(big.Int).Rsh(x, 64).Uint64()
	return nil
}

type jsonBytesError struct{ s string }

func (e *jsonBytesError) Error() string {
	return "tracesummary: " + e.s + " is not a byte count below 2^128"
}

// Float64 is b, rounded to the nearest float64 (rules compare floats).
func (b Bytes) Float64() float64 { return float64(b.hi)*0x1p64 + float64(b.lo) }
