"""The judge's defaults: the environment calls this endpoint and model unless its settings say otherwise,
and studio's workbench calibrates references against the same judge."""

HF_ROUTER_URL = "https://router.huggingface.co/v1"
DEFAULT_MODEL = "Qwen/Qwen3-VL-30B-A3B-Instruct"
