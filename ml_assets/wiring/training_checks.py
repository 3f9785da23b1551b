"""The "hungry accelerator" check shared by the training assets."""

import dagster as dg

DATA_WAIT_LIMIT = 0.05  # above this share of step time spent waiting for batches, the GPU starves


def data_wait_spec(asset: str) -> dg.AssetCheckSpec:
    return dg.AssetCheckSpec(
        "data_wait_below_5_percent",
        asset=asset,
        description="Warns when the training loop spent more than 5 % of step time waiting for the next batch.",
    )


def data_wait_result(asset: str, metadata: dict) -> dg.AssetCheckResult:
    share = metadata.get("data_wait_share")
    value = getattr(share, "value", share)
    if value is None:  # e.g. resumed at the final step: nothing was timed
        return dg.AssetCheckResult(
            asset_key=asset,
            check_name="data_wait_below_5_percent",
            passed=True,
            metadata={"note": "no training steps ran in this materialization"},
        )
    return dg.AssetCheckResult(
        asset_key=asset,
        check_name="data_wait_below_5_percent",
        passed=value <= DATA_WAIT_LIMIT,
        severity=dg.AssetCheckSeverity.WARN,
        metadata={"data_wait_share": value, "limit": DATA_WAIT_LIMIT},
    )
