"""A failed asset check's reason where a CLI run prints it: Dagster's CLI shows that a check
failed, by name, but its metadata (the counts, the limits, what failed) only in the UI."""

import dagster as dg


def logged_check(
    context: dg.AssetExecutionContext | dg.AssetCheckExecutionContext,
    result: dg.AssetCheckResult,
) -> dg.AssetCheckResult:
    """``result``, after logging it as an error with its metadata values when it failed."""
    if not result.passed:
        values = "; ".join(
            f"{key}={getattr(value, 'value', value)}" for key, value in result.metadata.items()
        )
        # a check decorated with @dg.asset_check leaves check_name to Dagster: its spec has it
        specs = getattr(context, "check_specs", None) or []
        name = result.check_name or (specs[0].name if len(specs) == 1 else "asset check")
        context.log.error(f"check {name} FAILED: {values}")
    return result
