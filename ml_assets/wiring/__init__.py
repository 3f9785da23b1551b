"""The glue between the assets and Dagster: stage records, memoized outputs, run configs,
partitions, checks, the plan and the generated files (dvc.yaml, params.yaml)."""
