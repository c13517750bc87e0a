package vk

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/vkgen/vkgen/internal/testenv"
	"github.com/vkgen/vkgen/internal/testreg"
	"github.com/vkgen/vkgen/registry"
)

// stringer is one entry of the generated table in layouts_test.go.
type stringer struct {
	c   string
	typ reflect.Type
}

// stringOf is the String of value v of type t.
func stringOf(t reflect.Type, v int64) string {
	x := reflect.New(t).Elem()
	if x.CanInt() {
		x.SetInt(v)
	} else {
		x.SetUint(uint64(v) & (1<<(8*t.Size()) - 1))
	}
	return x.Interface().(fmt.Stringer).String()
}

// TestStringsAgainstRegistry: every value of every enum and FlagBits type
// of the registry the views came from prints its first name that is no
// alias, through its type and its flags types; a value the registry lacks
// prints the type and number, flags the names of their bits then the
// unnamed bits in hex.
func TestStringsAgainstRegistry(t *testing.T) {
	r := testreg.Load(t, testenv.PinnedRegistry)
	if r.HeaderVersion != HeaderVersion {
		t.Skipf("views from VK_HEADER_VERSION %d, registry %d", HeaderVersion, r.HeaderVersion)
	}
	if len(stringers) < 500 {
		t.Fatalf("only %d stringers", len(stringers))
	}
	checked := 0
	for _, s := range stringers {
		ty := r.Type(s.c)
		e := r.Enum(s.c)
		flags := ty.Kind == registry.KindBitmask
		if flags {
			e = r.Enum(ty.Bits)
		}
		if e == nil {
			if got := stringOf(s.typ, 0); got != "0" {
				t.Errorf("%s(0) without bits = %q, want 0", s.c, got)
			}
			continue
		}
		flags = flags || e.Kind == registry.EnumKindBitmask
		named := map[int64]string{}
		for _, v := range e.Values {
			if v.Alias != "" || named[v.Value] != "" {
				continue
			}
			named[v.Value] = v.Name
			if got := stringOf(s.typ, v.Value); got != v.Name {
				t.Errorf("%s(%d) = %q, want %q", s.c, v.Value, got, v.Name)
			}
			checked++
		}
		if !flags {
			unknown := int64(0x7ffffff0)
			if want := fmt.Sprintf("%s(%d)", s.c, unknown); named[unknown] == "" && stringOf(s.typ, unknown) != want {
				t.Errorf("%s(%d) = %q, want %q", s.c, unknown, stringOf(s.typ, unknown), want)
			}
			continue
		}
		// Two named bits and the lowest unnamed one.
		var bits []int64
		free := int64(0)
		for i := range 8 * int(s.typ.Size()) {
			b := int64(1) << i
			if named[b] != "" {
				bits = append(bits, b)
			} else if free == 0 && i < 63 {
				free = b
			}
		}
		if len(bits) >= 2 && free != 0 && named[bits[0]|bits[1]] == "" {
			want := fmt.Sprintf("%s|%s|0x%x", named[bits[0]], named[bits[1]], free)
			if got := stringOf(s.typ, bits[0]|bits[1]|free); got != want {
				t.Errorf("%s(%#x) = %q, want %q", s.c, bits[0]|bits[1]|free, got, want)
			}
		}
	}
	if checked < 3000 {
		t.Errorf("only %d values checked", checked)
	}
}

func TestStringExamples(t *testing.T) {
	for got, want := range map[string]string{
		Success.String():                       "VK_SUCCESS",
		ErrorOutOfHostMemory.String():          "VK_ERROR_OUT_OF_HOST_MEMORY",
		Result(12345).String():                 "VkResult(12345)",
		BufferUsageFlags(0).String():           "0",
		StructureTypeBufferCreateInfo.String(): "VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO",
		(BufferUsageFlags(BufferUsageTransferSrcBit) | BufferUsageFlags(BufferUsageIndexBufferBit)).String(): "VK_BUFFER_USAGE_TRANSFER_SRC_BIT|VK_BUFFER_USAGE_INDEX_BUFFER_BIT",
		BufferUsageFlags(BufferUsageTransferDstBit | 1<<31).String():                                         "VK_BUFFER_USAGE_TRANSFER_DST_BIT|0x80000000",
		CullModeFlags(CullModeFrontAndBack).String():                                                         "VK_CULL_MODE_FRONT_AND_BACK",
		BufferViewCreateFlags(6).String():                                                                    "0x6",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}
