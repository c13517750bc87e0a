package memreport

import "testing"

// TestGroupsFollowDevice: a device key reused by another VkDevice (the same
// callback token) gets group tracks named for the new device, also right
// after the old one's were the last returned.
func TestGroupsFollowDevice(t *testing.T) {
	lt := newLifetimes()
	lt.deviceCreated(7, 0xa000)
	lt.mu.Lock()
	g := lt.groupsLocked(7, 1)
	lt.mu.Unlock()
	if g[0].Name != "VkDevice 0xa000" || g[1].Name != "heap 1" || g[1].Parent != g[0].UUID {
		t.Fatalf("groups %+v", g)
	}
	lt.deviceDestroyed(7)
	lt.deviceCreated(7, 0xb000)
	lt.mu.Lock()
	g = lt.groupsLocked(7, 1)
	lt.mu.Unlock()
	if g[0].Name != "VkDevice 0xb000" || g[1].Name != "heap 1" {
		t.Fatalf("groups after the device was replaced %+v, want VkDevice 0xb000 / heap 1", g)
	}
}
