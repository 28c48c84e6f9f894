"""Stable violation codes of the gate. Codes are part of the wire format: never rename one."""

from enum import Enum


class ViolationCode(str, Enum):
    # the reply itself
    NO_SKETCH = "no_sketch"  # a refusal or prose without code
    TRUNCATED = "truncated"  # the code was cut off
    SYNTAX_ERROR = "syntax_error"
    OVERSIZED = "oversized"  # far beyond any sensible sketch
    # structure
    NO_SETUP = "no_setup"
    CANVAS_NOT_WEBGL = "canvas_not_webgl"
    CANVAS_SIZE = "canvas_size"
    NO_PAINTING_CALL = "no_painting_call"
    # the medium
    BARE_P5_PRIMITIVE = "bare_p5_primitive"  # painting without the medium
    TEXT_LABEL = "text_label"
    UNKNOWN_BRUSH_METHOD = "unknown_brush_method"  # not a p5.brush method at all
    OFFLIST_BRUSH_METHOD = "offlist_brush_method"  # real p5.brush method, not allowed
    # sandbox escapes
    EXTERNAL_ACCESS = "external_access"
    BRUSH_ALIAS = "brush_alias"
    COMPUTED_ACCESS = "computed_access"
    MONKEY_PATCH = "monkey_patch"
    REFLECTION = "reflection"
    RAW_CONTEXT = "raw_context"
    OFFSCREEN_BUFFER = "offscreen_buffer"
    PIXEL_WRITE = "pixel_write"
    DOM_ACCESS = "dom_access"
    STRING_TIMER = "string_timer"
    OFFLIST_NAME = "offlist_name"  # a p5 or browser name outside the sketch's world (sketch_world.json)
    HTML_COMMENT = "html_comment"  # `<!--` or a line-leading `-->`: read as comments by V8, as code by other parsers
    # what the render showed
    RUNTIME_ERROR = "runtime_error"
    RENDER_TIMEOUT = "render_timeout"
    MEMORY_LIMIT = "memory_limit"
    BLANK_CANVAS = "blank_canvas"
    MALFORMED_REPORT = "malformed_report"  # the page's report did not parse: never trusted, never `unavailable`
