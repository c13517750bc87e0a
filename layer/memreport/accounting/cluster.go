package accounting

// Vulkan bit values (reference-behaviour.md 4.7), spelled out so the package
// needs no Vulkan headers.
const (
	BufferUsageTransferSrc              uint64 = 0x1
	BufferUsageTransferDst              uint64 = 0x2
	BufferUsageUniformTexel             uint64 = 0x4
	BufferUsageStorageTexel             uint64 = 0x8
	BufferUsageUniform                  uint64 = 0x10
	BufferUsageStorage                  uint64 = 0x20
	BufferUsageIndex                    uint64 = 0x40
	BufferUsageVertex                   uint64 = 0x80
	BufferUsageIndirect                 uint64 = 0x100
	BufferUsageConditionalRendering     uint64 = 0x200
	BufferUsageShaderBindingTable       uint64 = 0x400
	BufferUsageTransformFeedback        uint64 = 0x800
	BufferUsageTransformFeedbackCounter uint64 = 0x1000
	BufferUsageASBuildInputReadOnly     uint64 = 0x80000
	BufferUsageASStorage                uint64 = 0x100000

	ImageUsageSampled                uint32 = 0x4
	ImageUsageStorage                uint32 = 0x8
	ImageUsageColorAttachment        uint32 = 0x10
	ImageUsageDepthStencilAttachment uint32 = 0x20
	ImageUsageTransientAttachment    uint32 = 0x40
	ImageUsageInputAttachment        uint32 = 0x80
	ImageUsageTransferSrc            uint32 = 0x1
	ImageUsageTransferDst            uint32 = 0x2

	// ImageCreateDisjoint is VK_IMAGE_CREATE_DISJOINT_BIT.
	ImageCreateDisjoint uint32 = 0x200

	MemoryPropertyHostVisible     uint32 = 0x2
	MemoryPropertyLazilyAllocated uint32 = 0x10
)

// VkObjectType values the engine interprets in callback events.
const (
	ObjectTypeDevice          int32 = 3
	ObjectTypeDeviceMemory    int32 = 8
	ObjectTypeBuffer          int32 = 9
	ObjectTypeImage           int32 = 10
	ObjectTypeVideoSessionKHR int32 = 1000023000
)

const (
	bufferRayTracing = BufferUsageASStorage | BufferUsageASBuildInputReadOnly | BufferUsageShaderBindingTable
	bufferIndirect   = BufferUsageIndirect | BufferUsageConditionalRendering
	bufferStorage    = BufferUsageStorage | BufferUsageStorageTexel
	bufferUniform    = BufferUsageUniform | BufferUsageUniformTexel
	bufferGeometry   = BufferUsageVertex | BufferUsageIndex
	bufferXfb        = BufferUsageTransformFeedback | BufferUsageTransformFeedbackCounter
	bufferTransfer   = BufferUsageTransferSrc | BufferUsageTransferDst
	// Usages that make a transfer buffer more than a staging buffer.
	bufferFunctional = bufferRayTracing | bufferIndirect | bufferStorage | bufferUniform | bufferGeometry | bufferXfb
	// generalUses is how many of the functional kinds above make a buffer
	// general-purpose: a GL driver (Zink) gives every buffer every usage,
	// for a GL buffer object may be bound anywhere.
	generalUses = 3

	// imageGL is the usage a GL driver (Zink) gives every color image: a
	// GL texture may be sampled, copied and drawn into at any time. Such
	// an image is the application's texture (a render target in GL is a
	// texture attached to a framebuffer).
	imageGL = ImageUsageSampled | ImageUsageColorAttachment | ImageUsageInputAttachment | ImageUsageTransferSrc | ImageUsageTransferDst
)

// bufferKinds are the functional kinds generalUses counts.
var bufferKinds = [...]uint64{bufferRayTracing, bufferIndirect, bufferStorage, bufferUniform, bufferGeometry, bufferXfb}

// Cluster is a usage cluster: the last component of a counter track name.
type Cluster uint8

// The 15 clusters of reference-behaviour.md 4.7, buffer clusters in
// precedence order, then image clusters, then video sessions, then unbound
// memory.
const (
	ClusterStagingTransfer Cluster = iota
	ClusterRayTracing
	ClusterIndirectGPUDriven
	ClusterComputeStorage
	ClusterUniformConstants
	ClusterGeometryMesh
	ClusterTransformFeedback
	ClusterGeneralBuffer
	ClusterTransientMemoryless
	ClusterStorageComputeImage
	ClusterDepthStencilTarget
	ClusterColorRenderTarget
	ClusterStaticTexture
	ClusterGeneralImage
	// ClusterVideoSession is memory bound to a VkVideoSessionKHR (not one
	// of the reference's clusters: it had no video binds).
	ClusterVideoSession
	ClusterUnbound
	numClusters
)

// NumClusters is how many clusters there are: Cluster values are below it.
const NumClusters = int(numClusters)

var clusterNames = [numClusters]string{
	"staging_transfer", "ray_tracing", "indirect_gpu_driven", "compute_storage",
	"uniform_constants", "geometry_mesh", "transform_feedback", "general_buffer",
	"transient_memoryless", "storage_compute_image", "depth_stencil_target",
	"color_render_target", "static_texture", "general_image", "video_session", "unbound_memory",
}

// String returns the cluster's track component, e.g. "color_render_target";
// "" for values outside the set.
func (c Cluster) String() string {
	if c >= numClusters {
		return ""
	}
	return clusterNames[c]
}

// ClassifyBuffer returns the cluster of a buffer with the given usage bound
// to memory with the given property flags (4.7, first matching rule wins;
// docs/memreport.md "Clusters"): staging, then general-purpose (usage of
// generalUses functional kinds or more), then 4.7's order.
func ClassifyBuffer(usage uint64, memFlags uint32) Cluster {
	kinds := 0
	for _, k := range bufferKinds {
		if usage&k != 0 {
			kinds++
		}
	}
	switch {
	case memFlags&MemoryPropertyHostVisible != 0 && usage&bufferTransfer != 0 && usage&bufferFunctional == 0:
		return ClusterStagingTransfer
	case kinds >= generalUses:
		return ClusterGeneralBuffer
	case usage&bufferRayTracing != 0:
		return ClusterRayTracing
	case usage&bufferIndirect != 0:
		return ClusterIndirectGPUDriven
	case usage&bufferStorage != 0:
		return ClusterComputeStorage
	case usage&bufferUniform != 0:
		return ClusterUniformConstants
	case usage&bufferGeometry != 0:
		return ClusterGeometryMesh
	case usage&bufferXfb != 0:
		return ClusterTransformFeedback
	}
	return ClusterGeneralBuffer
}

// ClassifyImage returns the cluster of an image with the given usage bound to
// memory with the given property flags (4.7, first matching rule wins;
// docs/memreport.md "Clusters"): transient, then a GL driver's texture
// (every usage of imageGL), then 4.7's order.
func ClassifyImage(usage uint32, memFlags uint32) Cluster {
	switch {
	case usage&ImageUsageTransientAttachment != 0 || memFlags&MemoryPropertyLazilyAllocated != 0:
		return ClusterTransientMemoryless
	case usage&imageGL == imageGL:
		return ClusterStaticTexture
	case usage&ImageUsageStorage != 0:
		return ClusterStorageComputeImage
	case usage&ImageUsageDepthStencilAttachment != 0:
		return ClusterDepthStencilTarget
	case usage&ImageUsageColorAttachment != 0:
		return ClusterColorRenderTarget
	case usage&ImageUsageSampled != 0:
		return ClusterStaticTexture
	}
	return ClusterGeneralImage
}

// track indexes the 32 counter tracks: app tracks first, then driver tracks,
// each in Cluster order. A small integer keeps the hot path free of strings.
type track uint8

const numTracks = 2 * int(numClusters)

func trackOf(driver bool, c Cluster) track {
	if driver {
		return track(numClusters) + track(c)
	}
	return track(c)
}

func (t track) driver() bool     { return t >= track(numClusters) }
func (t track) cluster() Cluster { return Cluster(t % track(numClusters)) }

var trackNames = func() (names [numTracks]string) {
	for i := range names {
		t := track(i)
		names[i] = TrackName(t.driver(), t.cluster())
	}
	return names
}()

// TrackName returns the counter track for a cluster:
// "vulkan.mem.driver.usage.<cluster>" for driver-internal memory,
// "vulkan.mem.app.usage.<cluster>" otherwise; "" for an invalid cluster.
func TrackName(driver bool, c Cluster) string {
	if c >= numClusters {
		return ""
	}
	if driver {
		return "vulkan.mem.driver.usage." + clusterNames[c]
	}
	return "vulkan.mem.app.usage." + clusterNames[c]
}

// TrackNames lists all 32 counter tracks: app tracks then driver tracks, each
// in Cluster order (the order Snapshot emits counters in).
func TrackNames() []string { return append([]string(nil), trackNames[:]...) }
