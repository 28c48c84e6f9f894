"""The judge's defaults: the environment calls this endpoint and model unless its settings say otherwise,
studio's `pool calibrate` judges with the same, and `pool generate` asks the same router for paintings."""

HF_ROUTER_URL = "https://router.huggingface.co/v1"
DEFAULT_MODEL = "Qwen/Qwen3-VL-30B-A3B-Instruct"
