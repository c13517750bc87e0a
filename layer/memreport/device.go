package memreport

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/vkgen/vkgen/layer"
	"github.com/vkgen/vkgen/layer/memreport/accounting"
	"github.com/vkgen/vkgen/layer/vk"
)

// Instances and devices as the layer needs them: at vkCreateDevice it turns
// on VK_EXT_device_memory_report when the driver offers it (a copy of the
// application's create info with the extension, the feature and the layer's
// callback chained in), and it keeps what it asks the chain below later
// (the memory budget query, the device of a queue).

const (
	apiVersion11          = 1<<22 | 1<<12 // VK_API_VERSION_1_1
	extDeviceMemoryReport = "VK_EXT_device_memory_report"
	extMemoryBudget       = "VK_EXT_memory_budget"
	extProps2             = "VK_KHR_get_physical_device_properties2"
)

// instanceInfo is what an instance allows for the *2 physical-device
// queries, by the dispatch key its physical devices share.
type instanceInfo struct {
	handle vk.Instance
	core11 bool // apiVersion >= 1.1
	khr    bool // VK_KHR_get_physical_device_properties2 enabled
}

// deviceInfo2 is what the layer asks the chain below about a device later.
type deviceInfo2 struct {
	handle   vk.Device
	physical vk.PhysicalDevice
	budget   int // 0: no VK_EXT_memory_budget; 1: core query; 2: the KHR one
}

var (
	chainMu   sync.Mutex
	instances = map[uintptr]instanceInfo{} // by dispatch key
	devices   = map[uintptr]deviceInfo2{}  // by dispatch key (queues share it)
	tokens    atomic.Uint64                // per vkCreateDevice: the callback's pUserData
)

func postCreateInstance(info *vk.InstanceCreateInfo, _ *vk.AllocationCallbacks, pInstance *vk.Instance, result vk.Result) {
	if result != vk.Success || info == nil || pInstance == nil || *pInstance == 0 {
		return
	}
	presence.InstanceCreated(unsafe.Pointer(info))
	over.configure()
	configureCallStacks()
	ii := instanceInfo{handle: *pInstance}
	if a := info.PApplicationInfo; a != nil {
		ii.core11 = a.ApiVersion >= apiVersion11
	}
	for _, n := range cslice(info.PpEnabledExtensionNames, info.EnabledExtensionCount) {
		ii.khr = ii.khr || layer.CStringView(unsafe.Pointer(n)) == extProps2
	}
	chainMu.Lock()
	instances[layer.DispatchKey(uintptr(*pInstance))] = ii
	chainMu.Unlock()
}

func postDestroyInstance(instance vk.Instance, _ *vk.AllocationCallbacks) {
	st.instanceDestroyed(uintptr(instance))
	presence.InstanceDestroyed()
}

// instanceOf is the instance of a physical device.
func instanceOf(phys vk.PhysicalDevice) (instanceInfo, bool) {
	chainMu.Lock()
	defer chainMu.Unlock()
	ii, ok := instances[layer.DispatchKey(uintptr(phys))]
	return ii, ok
}

// props2 says whether the instance allows *2 queries for phys: through the
// core names (an instance of 1.1 on a device of 1.1) or the KHR ones.
func props2(ii instanceInfo, phys vk.PhysicalDevice) (core, ok bool) {
	if ii.core11 {
		var p vk.PhysicalDeviceProperties
		next.GetPhysicalDeviceProperties(phys, &p)
		core = p.ApiVersion >= apiVersion11
	}
	return core, core || ii.khr
}

// offers tells whether the chain below offers the device extension. A list
// that grew between the two calls (VK_INCOMPLETE) is asked again.
func offers(phys vk.PhysicalDevice, name string) bool {
	for range 4 {
		var n uint32
		if next.EnumerateDeviceExtensionProperties(phys, nil, &n, nil) != vk.Success || n == 0 {
			return false
		}
		props := make([]vk.ExtensionProperties, n)
		r := next.EnumerateDeviceExtensionProperties(phys, nil, &n, &props[0])
		if r != vk.Success && r != vk.Incomplete {
			return false
		}
		for _, p := range props[:min(int(n), len(props))] {
			if b, _, _ := strings.Cut(string(p.ExtensionName[:]), "\x00"); b == name {
				return true
			}
		}
		if r != vk.Incomplete {
			return false
		}
	}
	return false
}

// reportFeature tells whether phys supports the deviceMemoryReport feature,
// asked only the ways the instance allows.
func reportFeature(ii instanceInfo, phys vk.PhysicalDevice) bool {
	core, ok := props2(ii, phys)
	if !ok {
		return false
	}
	report := vk.PhysicalDeviceDeviceMemoryReportFeaturesEXT{SType: vk.StructureTypePhysicalDeviceDeviceMemoryReportFeaturesEXT}
	f2 := vk.PhysicalDeviceFeatures2{SType: vk.StructureTypePhysicalDeviceFeatures2, PNext: unsafe.Pointer(&report)}
	var pin runtime.Pinner
	defer pin.Unpin()
	pin.Pin(&report)
	if !core || !next.GetPhysicalDeviceFeatures2(phys, &f2) {
		next.GetPhysicalDeviceFeatures2KHR(phys, &f2)
	}
	return report.DeviceMemoryReport == vk.Bool32(vk.True)
}

// preCreateDevice passes down, when the driver offers the callback, a copy
// of the application's create info that enables it (createinfo.go); the
// token the callback reports under, and whether it is chained, go to the
// post hook.
func preCreateDevice(c *layer.Call, phys *vk.PhysicalDevice, pInfo **vk.DeviceCreateInfo, _ **vk.AllocationCallbacks, _ **vk.Device) vk.Result {
	token := tokens.Add(1)
	ii, known := instanceOf(*phys)
	use := known && *pInfo != nil && offers(*phys, extDeviceMemoryReport) && reportFeature(ii, *phys)
	ci, chained := buildCreateInfo(c, *pInfo, use, token, pfnDeviceMemoryReportCallbackEXT)
	if ci != nil {
		*pInfo = ci // nil: out of memory, the application's info goes down unchanged
	}
	user := uintptr(token << 1)
	if chained {
		user |= 1
	}
	c.SetUser(user)
	return vk.Success
}

func postCreateDevice(c *layer.Call, phys vk.PhysicalDevice, _ *vk.DeviceCreateInfo, _ *vk.AllocationCallbacks, pDevice *vk.Device, result vk.Result) {
	token, chained := uint64(c.User()>>1), c.User()&1 != 0
	if result != vk.Success || pDevice == nil || *pDevice == 0 {
		st.deviceFailed(token) // drop what callbacks reported during the failed creation
		return
	}
	device := *pDevice
	var mp vk.PhysicalDeviceMemoryProperties
	next.GetPhysicalDeviceMemoryProperties(phys, &mp)
	var props accounting.MemoryProperties
	for _, t := range mp.MemoryTypes[:min(mp.MemoryTypeCount, uint32(len(mp.MemoryTypes)))] {
		props.TypeFlags = append(props.TypeFlags, uint32(t.PropertyFlags))
		props.TypeHeaps = append(props.TypeHeaps, t.HeapIndex)
	}
	ii, _ := instanceOf(phys)
	di := deviceInfo2{handle: device, physical: phys}
	if core, ok := props2(ii, phys); ok && offers(phys, extMemoryBudget) {
		di.budget = 2
		if core {
			di.budget = 1
		}
	}
	chainMu.Lock()
	devices[layer.DispatchKey(uintptr(device))] = di
	chainMu.Unlock()
	st.deviceCreated(uintptr(device), uintptr(ii.handle), token, chained, di.budget != 0, props)
	var sizes []uint64
	for _, h := range mp.MemoryHeaps[:min(mp.MemoryHeapCount, uint32(len(mp.MemoryHeaps)))] {
		sizes = append(sizes, uint64(h.Size))
	}
	st.heapSizes(sizes)
	sampleBudgetNow(uintptr(device), true)
}

func dropDevice(device vk.Device) {
	chainMu.Lock()
	delete(devices, layer.DispatchKey(uintptr(device)))
	chainMu.Unlock()
}

// deviceOfQueue is the device a queue belongs to (0 when unknown).
func deviceOfQueue(queue vk.Queue) vk.Device {
	chainMu.Lock()
	defer chainMu.Unlock()
	return devices[layer.DispatchKey(uintptr(queue))].handle
}

// onDeviceMemoryReportCallbackEXT receives the driver's events, on whatever
// thread it reports from, possibly inside vkCreateDevice before the VkDevice
// exists: user is the device's token.
func onDeviceMemoryReportCallbackEXT(d *vk.DeviceMemoryReportCallbackDataEXT, user unsafe.Pointer) {
	if d == nil {
		return
	}
	st.callback(uint64(uintptr(user)), accounting.CallbackEvent{
		Type: accounting.CallbackType(d.Type), MemoryObjectID: d.MemoryObjectId, Size: uint64(d.Size),
		ObjectType: int32(d.ObjectType), ObjectHandle: d.ObjectHandle, HeapIndex: d.HeapIndex,
		// The reference reads an INTERNAL_OBJECT bit (0x1) that the registry
		// does not define; drivers following the specification send 0 and
		// report application memory as VK_OBJECT_TYPE_DEVICE_MEMORY, so any
		// other object type is internal too.
		Internal: d.Flags&1 != 0 || int32(d.ObjectType) != accounting.ObjectTypeDeviceMemory,
	})
}

// sampleBudgetNow samples VK_EXT_memory_budget when the device has it and
// BudgetInterval has passed, or force; only then does it ask the driver.
func sampleBudgetNow(device uintptr, force bool) {
	st.sampleBudget(device, force, func() (budget, usage []uint64) {
		chainMu.Lock()
		di := devices[layer.DispatchKey(device)]
		chainMu.Unlock()
		if di.budget == 0 {
			return nil, nil
		}
		b := vk.PhysicalDeviceMemoryBudgetPropertiesEXT{SType: vk.StructureTypePhysicalDeviceMemoryBudgetPropertiesEXT}
		p := vk.PhysicalDeviceMemoryProperties2{SType: vk.StructureTypePhysicalDeviceMemoryProperties2, PNext: unsafe.Pointer(&b)}
		var pin runtime.Pinner
		defer pin.Unpin()
		pin.Pin(&b)
		if di.budget != 1 || !next.GetPhysicalDeviceMemoryProperties2(di.physical, &p) {
			next.GetPhysicalDeviceMemoryProperties2KHR(di.physical, &p)
		}
		for i := range min(int(p.MemoryProperties.MemoryHeapCount), len(b.HeapBudget)) {
			budget, usage = append(budget, uint64(b.HeapBudget[i])), append(usage, uint64(b.HeapUsage[i]))
		}
		return budget, usage
	})
}
