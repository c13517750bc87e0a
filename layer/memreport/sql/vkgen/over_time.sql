-- vkgen.over_time: memory while the program ran (docs/memreport.md "Memory
-- over time"): frames, growth and budget thresholds. Included by
-- vkgen.memory, after its vkgen_memory_t0; `vkgen trace summary` reads the
-- same events (layer/memreport/sql's test compares them).

-- One row per frame with memory activity (VulkanMemoryFrame): its number
-- (from 1), end, and bytes allocated, freed, bound and unbound in it.
CREATE PERFETTO TABLE vkgen_memory_frames AS
SELECT EXTRACT_ARG(s.arg_set_id, 'debug.frame') AS frame,
       s.ts - (SELECT ts FROM vkgen_memory_t0) AS ns,
       EXTRACT_ARG(s.arg_set_id, 'debug.allocated') AS allocated,
       EXTRACT_ARG(s.arg_set_id, 'debug.freed') AS freed,
       EXTRACT_ARG(s.arg_set_id, 'debug.bound') AS bound,
       EXTRACT_ARG(s.arg_set_id, 'debug.unbound') AS unbound,
       s.arg_set_id
FROM slice s
WHERE s.category = 'VulkanDeviceMemoryReport' AND s.name = 'VulkanMemoryFrame'
ORDER BY s.ts;

-- A frame's bytes per kind (allocated, freed, bound, unbound), heap and
-- cluster: the event's "<kind>_heap<N>_<cluster>" annotations.
CREATE PERFETTO TABLE vkgen_memory_frame_cells AS
WITH cells AS (
  SELECT f.frame, substr(a.key, 7) AS k, instr(a.key, '_heap') - 6 AS h, a.int_value AS bytes
  FROM vkgen_memory_frames f JOIN args a USING (arg_set_id)
  WHERE a.key GLOB 'debug.*_heap[0-9]*_*'
), split AS (
  SELECT frame, substr(k, 1, h - 1) AS kind, substr(k, h + 5) AS rest, bytes FROM cells
)
SELECT frame, kind,
       CAST(substr(rest, 1, instr(rest, '_') - 1) AS INT) AS heap,
       substr(rest, instr(rest, '_') + 1) AS cluster,
       bytes
FROM split;

-- Frames ended: the vkgen.frame counter's last value (frames without
-- activity have no vkgen_memory_frames row).
CREATE PERFETTO TABLE vkgen_memory_frame_count AS
SELECT COALESCE(CAST(MAX(c.value) AS INT), 0) AS frames
FROM counter c JOIN counter_track t ON t.id = c.track_id
WHERE t.name = 'vkgen.frame';

-- Each growth found while the program ran (VulkanMemoryGrowth): the group
-- (type, and name: '' for an object type's unnamed objects), when its rise
-- began and when it was found (ns since vkgen_memory_t0), its bytes then
-- and now, the frames and the slope, the objects behind it.
CREATE PERFETTO TABLE vkgen_memory_growth AS
SELECT s.id,
       EXTRACT_ARG(s.arg_set_id, 'debug.type') AS type,
       EXTRACT_ARG(s.arg_set_id, 'debug.object_name') AS name,
       EXTRACT_ARG(s.arg_set_id, 'debug.start_ts') - (SELECT ts FROM vkgen_memory_t0) AS start_ns,
       s.ts - (SELECT ts FROM vkgen_memory_t0) AS ns,
       EXTRACT_ARG(s.arg_set_id, 'debug.start_bytes') AS start_bytes,
       EXTRACT_ARG(s.arg_set_id, 'debug.bytes') AS bytes,
       EXTRACT_ARG(s.arg_set_id, 'debug.frames') AS frames,
       EXTRACT_ARG(s.arg_set_id, 'debug.bytes_per_second') AS bytes_per_second,
       EXTRACT_ARG(s.arg_set_id, 'debug.objects') AS object_count,
       EXTRACT_ARG(s.arg_set_id, 'debug.object_bytes') AS object_bytes,
       EXTRACT_ARG(s.arg_set_id, 'debug.handles') AS handles
FROM slice s
WHERE s.category = 'VulkanDeviceMemoryReport' AND s.name = 'VulkanMemoryGrowth'
ORDER BY s.ts;

-- Growth per group (type, and name: '' for the unnamed objects of a type):
-- how many times it was found growing, and by how many bytes in all (each
-- growth from its start to its finding); what `vkgen trace check`'s growth
-- rules and the trace-summary spec's vkgen_memory_growth metrics read.
CREATE PERFETTO TABLE vkgen_memory_growth_totals AS
SELECT type, COALESCE(name, '') AS name, COUNT(*) AS growth_events,
       SUM(MAX(bytes - start_bytes, 0)) AS growth_bytes
FROM vkgen_memory_growth
GROUP BY type, COALESCE(name, '')
ORDER BY type, name;

-- The objects behind each growth (the largest, at most 64 per growth):
-- growth_id is vkgen_memory_growth.id; handle as the application saw it
-- (hex text), bytes.
CREATE PERFETTO TABLE vkgen_memory_growth_objects AS
WITH RECURSIVE split(growth_id, item, rest) AS (
  SELECT id, '', handles || ' ' FROM vkgen_memory_growth
  UNION ALL
  SELECT growth_id, substr(rest, 1, instr(rest, ' ') - 1), substr(rest, instr(rest, ' ') + 1)
  FROM split WHERE rest != ''
)
SELECT growth_id, substr(item, 1, instr(item, ':') - 1) AS handle, CAST(substr(item, instr(item, ':') + 1) AS INT) AS bytes
FROM split WHERE item != '';

-- Each growing group's live bytes from its finding on: the
-- vkgen.growth.<TYPE>.<name> tracks ('(unnamed)' for unnamed groups).
CREATE PERFETTO VIEW vkgen_memory_growth_curves AS
SELECT substr(t.name, 14, instr(substr(t.name, 14), '.') - 1) AS type,
       substr(substr(t.name, 14), instr(substr(t.name, 14), '.') + 1) AS name,
       c.ts - (SELECT ts FROM vkgen_memory_t0) AS ns, CAST(c.value AS INT) AS bytes
FROM counter c JOIN counter_track t ON t.id = c.track_id
WHERE t.name GLOB 'vkgen.growth.*';

-- Each crossing of a heap's budget threshold (VulkanMemoryBudgetThreshold):
-- usage and budget (budget_source VK_EXT_memory_budget, or heap_size
-- without the extension), the cluster that grew most and the largest
-- object that began since the last sample, the largest live allocations.
CREATE PERFETTO TABLE vkgen_memory_budget_thresholds AS
SELECT s.ts - (SELECT ts FROM vkgen_memory_t0) AS ns,
       EXTRACT_ARG(s.arg_set_id, 'debug.heap') AS heap,
       EXTRACT_ARG(s.arg_set_id, 'debug.usage') AS usage,
       EXTRACT_ARG(s.arg_set_id, 'debug.budget') AS budget,
       EXTRACT_ARG(s.arg_set_id, 'debug.threshold_percent') AS threshold_percent,
       EXTRACT_ARG(s.arg_set_id, 'debug.budget_source') AS budget_source,
       EXTRACT_ARG(s.arg_set_id, 'debug.grew_cluster') AS grew_cluster,
       EXTRACT_ARG(s.arg_set_id, 'debug.grew_bytes') AS grew_bytes,
       EXTRACT_ARG(s.arg_set_id, 'debug.largest_type') AS largest_type,
       EXTRACT_ARG(s.arg_set_id, 'debug.largest_name') AS largest_name,
       EXTRACT_ARG(s.arg_set_id, 'debug.largest_handle') AS largest_handle,
       EXTRACT_ARG(s.arg_set_id, 'debug.largest_bytes') AS largest_bytes,
       EXTRACT_ARG(s.arg_set_id, 'debug.largest_live') AS largest_live
FROM slice s
WHERE s.category = 'VulkanDeviceMemoryReport' AND s.name = 'VulkanMemoryBudgetThreshold'
ORDER BY s.ts;

-- Each heap's budget line: vulkan.mem.heap<N>.budget (VK_EXT_memory_budget)
-- or, without it, vkgen.heap<N>.size (budget_source heap_size), over time.
CREATE PERFETTO VIEW vkgen_memory_budget_lines AS
WITH lines AS (
  SELECT CAST(substr(t.name, 16, instr(substr(t.name, 16), '.') - 1) AS INT) AS heap,
         'VK_EXT_memory_budget' AS budget_source, c.ts, CAST(c.value AS INT) AS budget
  FROM counter c JOIN counter_track t ON t.id = c.track_id
  WHERE t.name GLOB 'vulkan.mem.heap[0-9]*.budget'
  UNION ALL
  SELECT CAST(substr(t.name, 11, instr(substr(t.name, 11), '.') - 1) AS INT),
         'heap_size', c.ts, CAST(c.value AS INT)
  FROM counter c JOIN counter_track t ON t.id = c.track_id
  WHERE t.name GLOB 'vkgen.heap[0-9]*.size'
)
SELECT heap, budget_source, ts - (SELECT ts FROM vkgen_memory_t0) AS ns, budget
FROM lines
WHERE budget_source = 'VK_EXT_memory_budget'
   OR heap NOT IN (SELECT heap FROM lines WHERE budget_source = 'VK_EXT_memory_budget');

-- Per heap: its budget's source and last value.
CREATE PERFETTO TABLE vkgen_memory_heap_budgets AS
SELECT heap, budget_source,
       (SELECT budget FROM vkgen_memory_budget_lines l2 WHERE l2.heap = l.heap ORDER BY ns DESC LIMIT 1) AS budget
FROM vkgen_memory_budget_lines l
GROUP BY heap, budget_source
ORDER BY heap;
