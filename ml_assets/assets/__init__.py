"""The asset modules: one software-defined asset (or its checks) per module, each a thin
wrapper over pure logic in ``ml_assets.core`` and ``ml_assets.training``, with its ``STAGE``
record (``ml_assets.wiring.stage``)."""
