-- vkgen.memory: the DeviceMemoryReport layer's trace as tables.
--
-- Load with `trace_processor_shell --add-sql-module layer/memreport/sql/vkgen`
-- (ui.perfetto.dev: paste this file into the query page), then
-- `INCLUDE PERFETTO MODULE vkgen.memory;`. docs/memreport.md describes the
-- events. The tables agree with `vkgen trace summary`, which reads the same
-- events independently: layer/memreport/sql's test compares them.

-- Every event of the layer: VulkanMemoryAllocation, VulkanObjectName,
-- VulkanMemoryLeak and VulkanMemoryAllocationFailed instants with their
-- annotations (uint64 values as trace_processor stores them: signed).
CREATE PERFETTO VIEW vkgen_memory_events AS
SELECT
  s.id,
  s.ts,
  s.name AS event,
  EXTRACT_ARG(s.arg_set_id, 'debug.operation') AS operation,
  EXTRACT_ARG(s.arg_set_id, 'debug.source') AS source,
  EXTRACT_ARG(s.arg_set_id, 'debug.memory_object_id') AS memory_object_id,
  EXTRACT_ARG(s.arg_set_id, 'debug.size') AS size,
  EXTRACT_ARG(s.arg_set_id, 'debug.offset') AS offset,
  COALESCE(EXTRACT_ARG(s.arg_set_id, 'debug.resource_offset'), EXTRACT_ARG(s.arg_set_id, 'debug.bind_index')) AS range_key,
  EXTRACT_ARG(s.arg_set_id, 'debug.object_handle') AS object_handle,
  EXTRACT_ARG(s.arg_set_id, 'debug.memory_type') AS memory_type,
  EXTRACT_ARG(s.arg_set_id, 'debug.heap') AS heap,
  EXTRACT_ARG(s.arg_set_id, 'debug.object_type') AS object_type,
  EXTRACT_ARG(s.arg_set_id, 'debug.object_name') AS object_name,
  EXTRACT_ARG(s.arg_set_id, 'debug.at') AS at,
  EXTRACT_ARG(s.arg_set_id, 'debug.descriptor') AS descriptor
FROM slice s
WHERE s.category = 'VulkanDeviceMemoryReport'
  AND s.dur = 0
  AND s.name IN ('VulkanMemoryAllocation', 'VulkanObjectName', 'VulkanMemoryLeak', 'VulkanMemoryAllocationFailed');

-- Whether a counter track is the layer's: vulkan.mem.*, less the tracks
-- trace_processor makes of VulkanMemoryEvent packets
-- (vulkan.mem.device.memory.type.*, vulkan.mem.driver.scope.*).
CREATE PERFETTO FUNCTION _vkgen_memory_track(name STRING) RETURNS BOOL AS
SELECT $name GLOB 'vulkan.mem.*' AND NOT $name GLOB 'vulkan.mem.device.memory.type.*'
  AND NOT $name GLOB 'vulkan.mem.driver.scope.*';

-- The time every *_ns column counts from: the first event of the layer (an
-- instant or a vulkan.mem.* counter value), as in `vkgen trace summary`.
CREATE PERFETTO TABLE vkgen_memory_t0 AS
SELECT MIN(ts) AS ts FROM (
  SELECT MIN(ts) AS ts FROM vkgen_memory_events
  UNION ALL
  SELECT MIN(c.ts) FROM counter c JOIN counter_track t ON t.id = c.track_id
  WHERE _vkgen_memory_track(t.name) OR t.name = 'vkgen.perfetto.dropped_events'
);

-- Memory and name events per object, with what the object holds after each:
-- an object is one lifetime of a (type, handle): it begins with its first
-- event after the DESTROY that released its last slot (allocation or
-- binding, keyed by memory and offset, and the resource offset or binding
-- index of sparse ranges and video session bindings) and ends with that
-- DESTROY. A name
-- belongs to the lifetime it was given in, or, given between lifetimes, to
-- the next one.
CREATE PERFETTO TABLE _vkgen_memory_object_events AS
WITH ev AS (
  SELECT id, ts, source AS type, object_handle AS handle, memory_object_id AS mem, offset AS off,
         COALESCE(range_key, 0) AS rkey, size, memory_type, heap, operation, NULL AS name, descriptor
  FROM vkgen_memory_events
  WHERE event = 'VulkanMemoryAllocation' AND operation IN ('CREATE', 'BIND', 'DESTROY')
  UNION ALL
  SELECT id, ts, CASE object_type WHEN 8 THEN 'DEVICE_MEMORY' WHEN 9 THEN 'BUFFER' WHEN 10 THEN 'IMAGE'
                                  WHEN 1000023000 THEN 'VIDEO_SESSION' END,
         object_handle, NULL, NULL, NULL, NULL, NULL, NULL, 'NAME', object_name, NULL
  FROM vkgen_memory_events
  WHERE event = 'VulkanObjectName' AND object_type IN (8, 9, 10, 1000023000)
), slot AS (
  -- a slot's presence and size after the event; a replayed CREATE/BIND of
  -- a slot already held changes nothing but its size
  SELECT *,
         CASE operation WHEN 'DESTROY' THEN 0 ELSE 1 END AS present,
         CASE operation WHEN 'DESTROY' THEN 0 ELSE size END AS slot_size
  FROM ev WHERE operation != 'NAME'
), delta AS (
  SELECT *,
         present - LAG(present, 1, 0) OVER w AS d_present,
         slot_size - LAG(slot_size, 1, 0) OVER w AS d_size
  FROM slot
  WINDOW w AS (PARTITION BY type, handle, mem, off, rkey ORDER BY ts, id)
), merged AS (
  SELECT id, ts, type, handle, mem, off, size, memory_type, heap, operation, name, d_present, d_size, descriptor FROM delta
  UNION ALL
  SELECT id, ts, type, handle, NULL, NULL, NULL, NULL, NULL, operation, name, 0, 0, NULL FROM ev WHERE operation = 'NAME'
), running AS (
  SELECT *,
         SUM(d_present) OVER w AS slots,
         SUM(d_size) OVER w AS held
  FROM merged
  WINDOW w AS (PARTITION BY type, handle ORDER BY ts, id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
), ends AS (
  SELECT *, (operation = 'DESTROY' AND d_present = -1 AND slots = 0) AS ends_life FROM running
)
SELECT *,
       COALESCE(SUM(ends_life) OVER (PARTITION BY type, handle ORDER BY ts, id
                                     ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS life
FROM ends;

-- The call site of each event that carries the application's call stack
-- (VulkanMemoryAllocation events of memory, buffers and images; trace_processor
-- links its slice to its callsite): the innermost frame outside the Vulkan
-- loader and layers, named by its function, else as module+0xoffset
-- (`vkgen trace summary` adds the file and line from the program's DWARF).
CREATE PERFETTO TABLE _vkgen_memory_event_sites AS
WITH frames AS (
  SELECT e.slice_id, e.callsite_id, a.depth, a.frame_id
  FROM __intrinsic_track_event_callstacks e
  JOIN experimental_ancestor_stack_profile_callsite(e.callsite_id) a
  UNION ALL
  SELECT e.slice_id, e.callsite_id, c.depth, c.frame_id
  FROM __intrinsic_track_event_callstacks e JOIN stack_profile_callsite c ON c.id = e.callsite_id
), app AS (
  SELECT fr.slice_id, fr.callsite_id, f.name AS fn, f.rel_pc,
         SUBSTR(m.name, LENGTH(RTRIM(m.name, REPLACE(m.name, '/', ''))) + 1) AS module,
         ROW_NUMBER() OVER (PARTITION BY fr.slice_id ORDER BY fr.depth DESC) AS r
  FROM frames fr
  JOIN stack_profile_frame f ON f.id = fr.frame_id
  JOIN stack_profile_mapping m ON m.id = f.mapping
  WHERE NOT (m.name GLOB '*libvulkan.so*' OR m.name GLOB '*/libVkLayer*')
)
SELECT slice_id, callsite_id, COALESCE(fn, module || '+' || PRINTF('%#x', rel_pc)) AS call_site
FROM app WHERE r = 1;

-- The events of t (row 1: type, handle, ts) each with the lifetime of its
-- (type, handle) it falls in (in_life, in_name; NULL outside every one),
-- given t's lifetimes (row 0: type, handle, ts it began, life, name, until
-- its end or NULL). Both are sorted together per (type, handle), grp
-- counting the lifetimes so far, so an event's group begins with the
-- lifetime that began last at or before it. (Joining on the handle and
-- comparing times is quadratic in its lifetimes, and drivers reuse handles:
-- lavapipe gives a new buffer the last one's address.)
CREATE PERFETTO MACRO _vkgen_memory_in_life(t TableOrSubquery) RETURNS TableOrSubquery AS
(SELECT *, IIF(head = 0 AND (l_until IS NULL OR ts <= l_until), l_life, NULL) AS in_life,
        IIF(head = 0 AND (l_until IS NULL OR ts <= l_until), l_name, NULL) AS in_name
 FROM (SELECT *, FIRST_VALUE(row) OVER g AS head, FIRST_VALUE(life) OVER g AS l_life,
              FIRST_VALUE(name) OVER g AS l_name, FIRST_VALUE(until) OVER g AS l_until
       FROM (SELECT *, SUM(1 - row) OVER (PARTITION BY type, handle ORDER BY ts, row ROWS UNBOUNDED PRECEDING) AS grp
             FROM $t)
       WINDOW g AS (PARTITION BY type, handle, grp ORDER BY ts, row))
 WHERE row = 1);

-- One row per object lifetime (docs/memreport.md, "vkgen trace summary"):
-- bytes is the most it held at once, final_bytes what it held at the end
-- of the trace, cluster the memory_type of its last memory event,
-- descriptor what it is (from its create info: the last its events said,
-- '' in traces without one); a VkDeviceMemory something was bound in has
-- cluster 'allocation' (its bytes are its resources' and its unbound bytes:
-- vkgen_memory_heap_totals),
-- created_ns/destroyed_ns since vkgen_memory_t0 (destroyed_ns NULL: alive at
-- the end), call_site where the application made it and callsite_id its
-- whole stack (stack_profile_callsite; both NULL without a call stack). A
-- stray DESTROY of a slot the trace never saw held is ignored.
CREATE PERFETTO TABLE vkgen_memory_objects AS
WITH ranked AS (
  SELECT *,
         ROW_NUMBER() OVER (PARTITION BY type, handle, life, operation = 'NAME' ORDER BY ts DESC, id DESC) AS r_last,
         ROW_NUMBER() OVER (PARTITION BY type, handle, life, operation != 'NAME' AND COALESCE(descriptor, '') != ''
                            ORDER BY ts DESC, id DESC) AS r_desc
  FROM _vkgen_memory_object_events
), lives AS (
  SELECT type, handle, life,
         MAX(CASE WHEN operation != 'NAME' THEN held END) AS bytes,
         MIN(CASE WHEN operation != 'NAME' THEN ts END) AS created,
         MAX(CASE WHEN ends_life THEN ts END) AS destroyed,
         MAX(CASE WHEN operation != 'NAME' AND r_last = 1 THEN held END) AS final_bytes,
         MAX(CASE WHEN operation != 'NAME' AND r_last = 1 THEN memory_type END) AS memory_type,
         MAX(CASE WHEN operation = 'NAME' AND r_last = 1 THEN name END) AS name,
         MAX(CASE WHEN operation != 'NAME' AND COALESCE(descriptor, '') != '' AND r_desc = 1 THEN descriptor END) AS descriptor
  FROM ranked
  GROUP BY type, handle, life
  HAVING created IS NOT NULL
), sites AS (
  SELECT o.type, o.handle, o.life, s.call_site, s.callsite_id,
         ROW_NUMBER() OVER (PARTITION BY o.type, o.handle, o.life ORDER BY o.ts, o.id) AS r
  FROM _vkgen_memory_object_events o JOIN _vkgen_memory_event_sites s ON s.slice_id = o.id
), bound AS (
  -- The VkDeviceMemory lives a buffer, image or video session was bound in.
  SELECT DISTINCT handle, in_life AS life
  FROM _vkgen_memory_in_life!((
    SELECT type, handle, created AS ts, 0 AS row, life, NULL AS name, destroyed AS until
    FROM lives WHERE type = 'DEVICE_MEMORY'
    UNION ALL
    SELECT 'DEVICE_MEMORY', memory_object_id, ts, 1, NULL, NULL, NULL FROM vkgen_memory_events
    WHERE event = 'VulkanMemoryAllocation' AND operation = 'BIND' AND source IN ('BUFFER', 'IMAGE', 'VIDEO_SESSION')))
  WHERE in_life IS NOT NULL
), parts AS (
  -- A life's figures, its first call site and whether something was bound
  -- in it, put together by grouping rather than joining: joins of these
  -- tables on (type, handle, life) are quadratic in trace_processor.
  SELECT type, handle, life, bytes, created, destroyed, final_bytes, memory_type, name, descriptor,
         NULL AS call_site, NULL AS callsite_id, 0 AS bound
  FROM lives
  UNION ALL
  SELECT type, handle, life, NULL, NULL, NULL, NULL, NULL, NULL, NULL, call_site, callsite_id, 0 FROM sites WHERE r = 1
  UNION ALL
  SELECT 'DEVICE_MEMORY', handle, life, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1 FROM bound
)
SELECT type, handle, COALESCE(MAX(name), '') AS name, MAX(bytes) AS bytes, MAX(final_bytes) AS final_bytes,
       IIF(type = 'DEVICE_MEMORY' AND MAX(bound) = 1, 'allocation', MAX(memory_type)) AS cluster,
       COALESCE(MAX(descriptor), '') AS descriptor,
       MAX(created) - (SELECT ts FROM vkgen_memory_t0) AS created_ns,
       MAX(destroyed) - (SELECT ts FROM vkgen_memory_t0) AS destroyed_ns,
       life, MAX(call_site) AS call_site, MAX(callsite_id) AS callsite_id
FROM parts
GROUP BY type, handle, life
HAVING MAX(created) IS NOT NULL;

-- Every vulkan.mem.* counter value: per cluster (heap NULL) and per heap
-- (vulkan.mem.heap<N>.*, heap N) over time; budget and driver-reported usage
-- tracks of VK_EXT_memory_budget too (docs/memreport.md).
CREATE PERFETTO VIEW vkgen_memory_counters AS
SELECT t.name AS track,
       CASE WHEN t.name GLOB 'vulkan.mem.heap[0-9]*.*'
            THEN CAST(substr(t.name, 16, instr(substr(t.name, 16), '.') - 1) AS INT) END AS heap,
       c.ts, CAST(c.value AS INT) AS value
FROM counter c JOIN counter_track t ON t.id = c.track_id
WHERE _vkgen_memory_track(t.name);

-- Memory per heap over time: the per-heap counters with the cluster track
-- they split.
CREATE PERFETTO VIEW vkgen_memory_heaps AS
SELECT heap, 'vulkan.mem.' || substr(track, 17 + length(CAST(heap AS TEXT))) AS cluster_track, ts, value
FROM vkgen_memory_counters WHERE heap IS NOT NULL;

-- Peak and final value of every vulkan.mem.* counter track.
CREATE PERFETTO TABLE vkgen_memory_clusters AS
SELECT track, MAX(value) AS peak,
       (SELECT value FROM vkgen_memory_counters c2 WHERE c2.track = c.track ORDER BY ts DESC LIMIT 1) AS final
FROM vkgen_memory_counters c
GROUP BY track;

-- The moment the allocations held the most (the first, if several), from
-- the allocation events: peak_bytes equals the peak of the sum of the
-- vulkan.mem.{app|driver}.usage.* counters.
CREATE PERFETTO TABLE vkgen_memory_peak AS
WITH alloc AS (
  SELECT ts, id, SUM(d_size) OVER (ORDER BY ts, id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS total
  FROM _vkgen_memory_object_events WHERE type IN ('DEVICE_MEMORY', 'DRIVER')
)
SELECT ts, id, total AS peak_bytes FROM alloc ORDER BY total DESC, ts, id LIMIT 1;

-- The objects alive at the peak with what each held then, largest first:
-- allocations (DEVICE_MEMORY, DRIVER) add up to peak_bytes; buffers and
-- images show what was bound in them.
CREATE PERFETTO TABLE vkgen_memory_top_at_peak AS
WITH at_peak AS (
  SELECT e.type, e.handle, e.life, e.held,
         ROW_NUMBER() OVER (PARTITION BY e.type, e.handle, e.life ORDER BY e.ts DESC, e.id DESC) AS r
  FROM _vkgen_memory_object_events e, vkgen_memory_peak p
  WHERE e.operation != 'NAME' AND (e.ts < p.ts OR (e.ts = p.ts AND e.id <= p.id))
)
SELECT o.type, o.handle, o.name, a.held AS bytes, o.cluster,
       (SELECT ts FROM vkgen_memory_peak) - (SELECT ts FROM vkgen_memory_t0) AS peak_ns
FROM at_peak a
JOIN vkgen_memory_objects o ON o.type = a.type AND o.handle = a.handle AND o.life = a.life
WHERE a.r = 1 AND a.held > 0
ORDER BY bytes DESC, o.type, o.handle;

-- Objects the application had not released at vkDestroyDevice,
-- vkDestroyInstance or exit (VulkanMemoryLeak events), in time order.
CREATE PERFETTO TABLE vkgen_memory_leaks AS
SELECT ts - (SELECT ts FROM vkgen_memory_t0) AS ns, at, source AS type, object_handle AS handle,
       object_name AS name, size AS bytes, memory_type AS cluster, heap, COALESCE(descriptor, '') AS descriptor
FROM vkgen_memory_events WHERE event = 'VulkanMemoryLeak'
ORDER BY ts, id;

-- Objects that still held memory at the end of the trace with no
-- VulkanMemoryLeak event for them, largest first: what a process ended by a
-- signal, SIGKILL or _exit (which run no layer code) still held, or what was
-- alive when the recording stopped. bytes is what each held then, heap that
-- of its last memory event (the summary's "Alive at the end of the trace").
CREATE PERFETTO TABLE vkgen_memory_alive_at_end AS
WITH last_heap AS (
  SELECT type, handle, life, heap,
         ROW_NUMBER() OVER (PARTITION BY type, handle, life ORDER BY ts DESC, id DESC) AS r
  FROM _vkgen_memory_object_events WHERE operation != 'NAME'
)
SELECT o.type, o.handle, o.name, o.final_bytes AS bytes, o.cluster, h.heap
FROM vkgen_memory_objects o
JOIN last_heap h ON h.type = o.type AND h.handle = o.handle AND h.life = o.life AND h.r = 1
WHERE o.destroyed_ns IS NULL AND o.final_bytes > 0
  AND NOT EXISTS (SELECT 1 FROM vkgen_memory_leaks l WHERE l.type = o.type AND l.handle = o.handle AND l.ns >= o.created_ns)
ORDER BY bytes DESC, o.type, o.handle;

-- Failed allocations (VulkanMemoryAllocationFailed events).
CREATE PERFETTO TABLE vkgen_memory_failures AS
SELECT ts - (SELECT ts FROM vkgen_memory_t0) AS ns, source, size, heap, memory_object_id
FROM vkgen_memory_events WHERE event = 'VulkanMemoryAllocationFailed'
ORDER BY ts, id;

-- The lifetime slices (what the UI shows under process > VkDevice > heap):
-- one row per allocation or binding, grouped by the slices' lifetime
-- annotation (a rename ends a slice and begins the next at the same time).
-- dur is NULL for a lifetime still open at the end of the trace.
CREATE PERFETTO TABLE vkgen_memory_lifetimes AS
WITH sl AS (
  SELECT s.id, s.ts, s.dur, s.name, s.track_id, EXTRACT_ARG(s.arg_set_id, 'debug.lifetime') AS lifetime,
         ROW_NUMBER() OVER (PARTITION BY EXTRACT_ARG(s.arg_set_id, 'debug.lifetime') ORDER BY s.ts DESC, s.id DESC) AS r
  FROM slice s
  WHERE s.category = 'VulkanDeviceMemoryReport' AND EXTRACT_ARG(s.arg_set_id, 'debug.lifetime') IS NOT NULL
)
SELECT sl.lifetime, kind.name AS kind, dev.name AS device,
       CAST(substr(heap.name, 6) AS INT) AS heap,
       last.name AS name,
       MIN(sl.ts) AS ts,
       CASE WHEN last.dur < 0 THEN NULL ELSE last.ts + last.dur - MIN(sl.ts) END AS dur,
       COUNT(*) AS slices
FROM sl
JOIN sl last ON last.lifetime = sl.lifetime AND last.r = 1
JOIN track kind ON kind.id = last.track_id
JOIN track heap ON heap.id = kind.parent_id
JOIN track dev ON dev.id = heap.parent_id
GROUP BY sl.lifetime;

-- Perfetto's own vulkan_memory_allocations rows (the VulkanMemoryEvent
-- packets the layer writes beside its events unless the setting
-- vulkan_memory_events is off) with the name of the object lifetime each
-- belongs to, which trace_processor does not join: the lifetime of its
-- (type, handle) that began last at or before the row. object_name is NULL
-- for an unnamed object; life is vkgen_memory_objects' life.
CREATE PERFETTO TABLE vkgen_memory_vulkan_allocations AS
WITH a AS (
  SELECT v.id, v.timestamp AS ts, v.source, v.operation, v.memory_size, v.device_memory, v.object_handle,
         v.memory_type, v.heap, v.upid,
         CASE v.source WHEN 'GPU_DEVICE_MEMORY' THEN 'DEVICE_MEMORY' WHEN 'GPU_BUFFER' THEN 'BUFFER'
                       WHEN 'GPU_IMAGE' THEN 'IMAGE' WHEN 'DRIVER' THEN 'DRIVER' END AS type,
         IIF(v.source IN ('GPU_BUFFER', 'GPU_IMAGE'), v.object_handle, v.device_memory) AS handle
  FROM vulkan_memory_allocations v
)
SELECT id, ts, source, operation, memory_size, device_memory, object_handle, memory_type, heap, upid, type,
       in_name AS object_name, in_life AS life
FROM _vkgen_memory_in_life!((
  SELECT type, handle, created_ns + (SELECT ts FROM vkgen_memory_t0) AS ts, 0 AS row, life, NULLIF(name, '') AS name,
         destroyed_ns + (SELECT ts FROM vkgen_memory_t0) AS until, NULL AS id, NULL AS source, NULL AS operation,
         NULL AS memory_size, NULL AS device_memory, NULL AS object_handle, NULL AS memory_type, NULL AS heap,
         NULL AS upid
  FROM vkgen_memory_objects
  UNION ALL
  SELECT type, handle, ts, 1, NULL, NULL, NULL, id, source, operation, memory_size, device_memory, object_handle,
         memory_type, heap, upid
  FROM a));

-- Memory per cluster (app and driver), heap (every cluster) and total (app,
-- driver), as `vkgen trace summary` computes its groups: the sum of the
-- group's vulkan.mem.* usage tracks over time, peak_bytes the most it held
-- after all the changes at one timestamp, final_bytes at the end. The
-- trace-summary spec (sql/spec/vkgen_memory.textproto) reads it.
CREATE PERFETTO TABLE vkgen_memory_groups AS
WITH usage AS (
  SELECT id, name, name GLOB 'vulkan.mem.app.usage.*' OR name GLOB 'vulkan.mem.driver.usage.*' AS process_wide
  FROM counter_track
  WHERE name GLOB 'vulkan.mem.app.usage.*' OR name GLOB 'vulkan.mem.driver.usage.*'
     OR name GLOB 'vulkan.mem.heap[0-9]*.app.usage.*' OR name GLOB 'vulkan.mem.heap[0-9]*.driver.usage.*'
), m AS (
  SELECT id AS track_id, 'cluster' AS kind, SUBSTR(name, INSTR(name, '.usage.') + 7) AS key FROM usage WHERE process_wide
  UNION ALL
  SELECT id, 'total', IIF(name GLOB 'vulkan.mem.app.*', 'app', 'driver') FROM usage WHERE process_wide
  UNION ALL
  SELECT id, 'heap', SUBSTR(name, 16, INSTR(SUBSTR(name, 16), '.') - 1) FROM usage WHERE NOT process_wide
), d AS (
  SELECT m.kind, m.key, c.ts, c.id,
         c.value - COALESCE(LAG(c.value) OVER (PARTITION BY m.kind, m.key, c.track_id ORDER BY c.ts, c.id), 0) AS delta
  FROM counter c JOIN m USING (track_id)
), run AS (
  SELECT kind, key, ts, id, SUM(delta) OVER (PARTITION BY kind, key ORDER BY ts, id) AS cur
  FROM d
), settled AS (
  SELECT kind, key, cur,
         ROW_NUMBER() OVER (PARTITION BY kind, key, ts ORDER BY id DESC) AS last_at_ts,
         ROW_NUMBER() OVER (PARTITION BY kind, key ORDER BY ts DESC, id DESC) AS last
  FROM run
)
SELECT kind, key, CAST(MAX(cur) AS INT) AS peak_bytes, CAST(MAX(IIF(last = 1, cur, NULL)) AS INT) AS final_bytes
FROM settled WHERE last_at_ts = 1
GROUP BY kind, key;

-- The sum of the failed allocations' sizes, exact: added in 32-bit halves
-- (a plain SUM of 100,000 sizes of 2^62 overflows SQLite's integers).
-- failed_bytes is NULL and overflowed 1 when the sum is 2^63 or more.
CREATE PERFETTO TABLE _vkgen_memory_failed_sum AS
WITH halves AS (
  SELECT COALESCE(SUM((size >> 32) & 4294967295), 0) AS hi, COALESCE(SUM(size & 4294967295), 0) AS lo
  FROM vkgen_memory_failures
), carried AS (
  SELECT hi + (lo >> 32) AS hi, lo & 4294967295 AS lo FROM halves
)
SELECT IIF(hi < 2147483648, (hi << 32) | lo, NULL) AS failed_bytes, hi >= 2147483648 AS overflowed FROM carried;

-- One row of a trace's leak and failure figures: leaks (VulkanMemoryLeak
-- events) and their bytes, objects alive at the end with no leak event and
-- their bytes, failed allocations and their bytes (NULL, with
-- failed_bytes_overflowed 1, past 2^63 - 1: `vkgen trace summary` prints
-- the exact sum).
CREATE PERFETTO TABLE vkgen_memory_totals AS
SELECT (SELECT COUNT(*) FROM vkgen_memory_leaks) AS leaks,
       (SELECT COALESCE(SUM(bytes), 0) FROM vkgen_memory_leaks) AS leaked_bytes,
       (SELECT COUNT(*) FROM vkgen_memory_alive_at_end) AS alive_at_end,
       (SELECT COALESCE(SUM(bytes), 0) FROM vkgen_memory_alive_at_end) AS alive_bytes,
       (SELECT COUNT(*) FROM vkgen_memory_failures) AS failed_allocations,
       (SELECT failed_bytes FROM _vkgen_memory_failed_sum) AS failed_bytes,
       (SELECT overflowed FROM _vkgen_memory_failed_sum) AS failed_bytes_overflowed;

-- Memory over time: frames, growth, budget thresholds (over_time.sql).
INCLUDE PERFETTO MODULE vkgen.over_time;

-- The state of every allocation and binding slot after each timestamp's
-- events: a slot is an allocation (DEVICE_MEMORY or DRIVER, keyed by its
-- memory object) or a binding (BUFFER, IMAGE, VIDEO_SESSION, keyed by
-- handle, memory, offset and range key); each event sets its slot's
-- presence, size and heap.
CREATE PERFETTO TABLE _vkgen_memory_slot_events AS
SELECT id, ts, source IN ('DEVICE_MEMORY', 'DRIVER') AS is_alloc, source, memory_object_id AS mem,
       IIF(source IN ('DEVICE_MEMORY', 'DRIVER'), 0, object_handle) AS handle,
       IIF(source IN ('DEVICE_MEMORY', 'DRIVER'), 0, offset) AS off,
       IIF(source IN ('DEVICE_MEMORY', 'DRIVER'), 0, COALESCE(range_key, 0)) AS rkey,
       operation != 'DESTROY' AS present, size, COALESCE(heap, 0) AS heap
FROM vkgen_memory_events
WHERE event = 'VulkanMemoryAllocation' AND operation IN ('CREATE', 'BIND', 'DESTROY');

-- The memory the device holds (allocations, app and driver: held) and the
-- bindings' sizes summed (binds) per heap after each timestamp: every slot
-- event moves its slot's old size out of its old heap and its new size
-- into its new heap.
CREATE PERFETTO TABLE _vkgen_memory_held AS
WITH prev AS (
  SELECT *, LAG(present, 1, 0) OVER w AS p_present, LAG(size, 1, 0) OVER w AS p_size, LAG(heap) OVER w AS p_heap
  FROM _vkgen_memory_slot_events
  WINDOW w AS (PARTITION BY is_alloc, source, mem, handle, off, rkey ORDER BY ts, id)
), moves AS (
  SELECT ts, is_alloc, heap, IIF(present, size, 0) AS delta FROM prev
  UNION ALL
  SELECT ts, is_alloc, p_heap, -p_size FROM prev WHERE p_present
), per_heap AS (
  SELECT CAST(heap AS TEXT) AS heap, ts, SUM(IIF(is_alloc, delta, 0)) AS held, SUM(IIF(is_alloc, 0, delta)) AS binds
  FROM moves GROUP BY heap, ts
  UNION ALL
  SELECT 'all', ts, SUM(IIF(is_alloc, delta, 0)), SUM(IIF(is_alloc, 0, delta)) FROM moves GROUP BY ts
), times AS (
  -- every timestamp of an allocation or binding event is a moment of each heap
  SELECT h.heap, t.ts FROM (SELECT DISTINCT heap FROM per_heap) h, (SELECT DISTINCT ts FROM _vkgen_memory_slot_events) t
)
SELECT t.heap, t.ts, SUM(COALESCE(p.held, 0)) OVER w AS held, SUM(COALESCE(p.binds, 0)) OVER w AS binds
FROM times t LEFT JOIN per_heap p ON p.heap = t.heap AND p.ts = t.ts
WINDOW w AS (PARTITION BY t.heap ORDER BY t.ts);

-- The moments the totals are taken at: each heap's (and every heap's,
-- 'all') peak, the timestamp its held bytes stood at their maximum with the
-- most bytes bound (binds), the last of those, and the end, the last
-- timestamp of an allocation or binding event.
CREATE PERFETTO TABLE _vkgen_memory_total_points AS
WITH ranked AS (
  SELECT heap, ts, ROW_NUMBER() OVER (PARTITION BY heap ORDER BY held DESC, binds DESC, ts DESC) AS r FROM _vkgen_memory_held
)
SELECT heap, 'peak' AS point, ts FROM ranked WHERE r = 1
UNION ALL
SELECT heap, 'end', (SELECT MAX(ts) FROM _vkgen_memory_slot_events) FROM (SELECT DISTINCT heap FROM _vkgen_memory_held);

-- Per heap, then over every heap ('all'), at its peak and at the end
-- (point), the device memory's bytes, each counted once: allocated (the
-- application's VkDeviceMemory), driver (internal allocations), bound (the
-- union of the bound ranges in the allocations, cut at their ends),
-- unbound (allocated - bound), aliased (bound bytes two or more bindings
-- cover) and resource (the bound resources' sizes summed, as the cluster
-- counters count them), and the live allocations (blocks). `vkgen trace
-- summary` computes the same ("Totals per heap"); ns counts from
-- vkgen_memory_t0.
CREATE PERFETTO TABLE vkgen_memory_heap_totals AS
WITH pts AS (SELECT DISTINCT ts FROM _vkgen_memory_total_points),
state AS (
  -- each slot's last event at or before each point
  SELECT p.ts AS at, e.*, ROW_NUMBER() OVER (PARTITION BY p.ts, e.is_alloc, e.source, e.mem, e.handle, e.off, e.rkey ORDER BY e.ts DESC, e.id DESC) AS r
  FROM pts p JOIN _vkgen_memory_slot_events e ON e.ts <= p.ts
), allocs AS (
  SELECT at, source, mem, size, heap FROM state WHERE r = 1 AND is_alloc AND present
), binds AS (
  SELECT s.at, s.mem, s.off, s.size, a.size AS block, a.heap
  FROM state s JOIN allocs a ON a.at = s.at AND a.mem = s.mem AND a.source = 'DEVICE_MEMORY'
  WHERE s.r = 1 AND NOT s.is_alloc AND s.present
), edges AS (
  SELECT at, mem, heap, MIN(off, block) AS pos, 1 AS delta FROM binds WHERE MIN(off, block) < MIN(off + size, block)
  UNION ALL
  SELECT at, mem, heap, MIN(off + size, block), -1 FROM binds WHERE MIN(off, block) < MIN(off + size, block)
), swept AS (
  SELECT at, mem, heap, pos,
         SUM(delta) OVER (PARTITION BY at, mem ORDER BY pos, delta ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS depth,
         LEAD(pos) OVER (PARTITION BY at, mem ORDER BY pos, delta) - pos AS len
  FROM edges
), per_heap AS (
  SELECT at, CAST(heap AS TEXT) AS heap,
         SUM(IIF(source = 'DEVICE_MEMORY', size, 0)) AS allocated, SUM(IIF(source = 'DRIVER', size, 0)) AS driver,
         0 AS bound, 0 AS aliased, 0 AS resource, SUM(source = 'DEVICE_MEMORY') AS blocks
  FROM allocs GROUP BY at, heap
  UNION ALL
  SELECT at, CAST(heap AS TEXT), 0, 0, SUM(IIF(depth >= 1, len, 0)), SUM(IIF(depth >= 2, len, 0)), 0, 0
  FROM swept WHERE len IS NOT NULL GROUP BY at, heap
  UNION ALL
  SELECT at, CAST(heap AS TEXT), 0, 0, 0, 0, SUM(size), 0 FROM binds GROUP BY at, heap
), sums AS (
  SELECT at, heap, SUM(allocated) AS allocated, SUM(driver) AS driver, SUM(bound) AS bound, SUM(aliased) AS aliased,
         SUM(resource) AS resource, SUM(blocks) AS blocks
  FROM per_heap GROUP BY at, heap
  UNION ALL
  SELECT at, 'all', SUM(allocated), SUM(driver), SUM(bound), SUM(aliased), SUM(resource), SUM(blocks)
  FROM per_heap GROUP BY at
)
SELECT p.heap, p.point, p.ts - (SELECT ts FROM vkgen_memory_t0) AS ns,
       COALESCE(s.allocated, 0) AS allocated_bytes, COALESCE(s.driver, 0) AS driver_bytes,
       COALESCE(s.bound, 0) AS bound_bytes, MAX(COALESCE(s.allocated, 0) - COALESCE(s.bound, 0), 0) AS unbound_bytes,
       COALESCE(s.aliased, 0) AS aliased_bytes, COALESCE(s.resource, 0) AS resource_bytes, COALESCE(s.blocks, 0) AS blocks
FROM _vkgen_memory_total_points p LEFT JOIN sums s ON s.at = p.ts AND s.heap = p.heap;
