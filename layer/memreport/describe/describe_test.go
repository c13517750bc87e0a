package describe

import "testing"

func TestDescriptors(t *testing.T) {
	for _, c := range []struct {
		got  interface{ String() string }
		want string
	}{
		{Image{Type: 1, Format: 37, Width: 400, Height: 300, Depth: 1, MipLevels: 1, ArrayLayers: 1, Samples: 1, Usage: 0x4 | 0x2},
			"image 2D 400x300 R8G8B8A8_UNORM transfer_dst|sampled"},
		{Image{Type: 2, Format: 126, Width: 8, Height: 8, Depth: 4, MipLevels: 4, ArrayLayers: 6, Samples: 4, Tiling: 1, Usage: 0x20, Flags: 0x10},
			"image 3D 8x8x4 layers=6 mips=4 samples=4 D32_SFLOAT linear depth_stencil_attachment create=cube_compatible"},
		{Image{Type: 7, Format: 999999, Tiling: 5, Usage: 0x40000000}, "image 7 0x0 999999 5 0x40000000"},
		{Buffer{Size: 65536, Usage: 0x80 | 0x2}, "buffer 65536 transfer_dst|vertex"},
		{Buffer{Size: 1}, "buffer 1 0"},
		{Memory{TypeIndex: 1, Heap: 0, Flags: 0x1 | 0x2, Dedicated: "image", External: "exported"},
			"memory type 1 heap 0 device_local|host_visible dedicated image exported"},
	} {
		if s := c.got.String(); s != c.want {
			t.Errorf("%#v: %q, want %q", c.got, s, c.want)
		}
	}
}
