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
        context.log.error(f"check {result.check_name} FAILED: {values}")
    return result
