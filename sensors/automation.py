"""The sensor that evaluates every asset's automation condition, declared here so it is
stopped by default and says so: Dagster would otherwise add it implicitly, undescribed, while
each asset page shows its automation condition as if it acted."""

import dagster as dg

AUTOMATION_SENSOR = "default_automation_condition_sensor"

automation_condition_sensor = dg.AutomationConditionSensorDefinition(
    AUTOMATION_SENSOR,
    target=dg.AssetSelection.all(),
    default_status=dg.DefaultSensorStatus.STOPPED,
    description=(
        "Evaluates every asset's automation condition (shown on each asset page): when it is "
        "switched on, an asset whose upstream data, code or params changed, or that is missing, "
        "is materialized once its upstream gates passed. Stopped by default: nothing runs on "
        "its own until it is switched on under Automation."
    ),
)
