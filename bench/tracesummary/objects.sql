-- The per-object table of `vkgen trace summary` in trace_processor's SQL:
-- an object is one lifetime of a (source, handle), ended by the DESTROY
-- that releases it; a name belongs to the lifetime it was given in. The
-- result is reduced to one row (count, total bytes) so that printing does
-- not dominate; bench/tracesummary/run.sh runs it.
WITH ev AS (
  SELECT ts, name, arg_set_id FROM slice WHERE category = 'VulkanDeviceMemoryReport'
), mem AS (
  SELECT ts, 1 AS kind,
         EXTRACT_ARG(arg_set_id, 'debug.operation')     AS op,
         EXTRACT_ARG(arg_set_id, 'debug.source')        AS src,
         EXTRACT_ARG(arg_set_id, 'debug.object_handle') AS handle,
         EXTRACT_ARG(arg_set_id, 'debug.size')          AS size,
         EXTRACT_ARG(arg_set_id, 'debug.memory_type')   AS memory_type,
         NULL AS object_name
  FROM ev WHERE name = 'VulkanMemoryAllocation'
), names AS (
  SELECT ts, 0 AS kind, NULL AS op,
         CASE EXTRACT_ARG(arg_set_id, 'debug.object_type')
           WHEN 9 THEN 'BUFFER' WHEN 10 THEN 'IMAGE' WHEN 8 THEN 'DEVICE_MEMORY' END AS src,
         EXTRACT_ARG(arg_set_id, 'debug.object_handle') AS handle,
         NULL AS size, NULL AS memory_type,
         EXTRACT_ARG(arg_set_id, 'debug.object_name')   AS object_name
  FROM ev WHERE name = 'VulkanObjectName'
), life AS (
  SELECT *, COALESCE(SUM(op = 'DESTROY') OVER (
           PARTITION BY src, handle ORDER BY ts, kind
           ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS lifetime
  FROM (SELECT * FROM mem UNION ALL SELECT * FROM names)
), objects AS (
  SELECT src, handle, lifetime, MAX(size) AS bytes, MIN(ts) AS created,
         MAX(object_name) AS object_name, MAX(memory_type) AS memory_type
  FROM life GROUP BY src, handle, lifetime HAVING COUNT(size) > 0
)
SELECT COUNT(*) AS objects, SUM(bytes) AS bytes FROM objects;
