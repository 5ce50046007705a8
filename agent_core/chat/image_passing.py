"""Which images of tool results a request passes to its model, and which it leaves to their
one-line summaries (a tool result's text always describes each of its images), with the reason
for each, so View Context can say what the model saw.

A model sees images only when its provider says it can (``Provider.accepts_images``), and then
within bounds: a few per result, none over a size, and a total per request, newest first, since a
long chat would otherwise resend every image it ever had with each message.
"""

from __future__ import annotations

import binascii
from base64 import b64decode
from collections.abc import Sequence
from dataclasses import dataclass, replace

from agent_core.budget.fitting import SUMMARY_PREFIX
from agent_core.chat.prompt import Prompt
from agent_core.chat.resolved_model import ResolvedModel
from agent_core.content_parts import decoded_size, human_size
from agent_core.context.items import ImageUse
from agent_core.providers.base import ChatMessage, ImageInput

__all__ = [
    "MAX_IMAGES_PER_REQUEST",
    "MAX_IMAGES_PER_RESULT",
    "MAX_IMAGE_BYTES",
    "MAX_REQUEST_IMAGE_BYTES",
    "ImageLimits",
    "pass_images",
    "with_images_for",
]

MAX_IMAGES_PER_RESULT = 4
MAX_IMAGE_BYTES = 5 * 512 * 1024  # 2.5 MB decoded; every provider's limit per image is above this
MAX_IMAGES_PER_REQUEST = 20
# Decoded; as base64 this stays under Gemini's 20 MB for a whole request.
MAX_REQUEST_IMAGE_BYTES = 10 * 1024 * 1024
# What a manifest lists at most (the newest): a chat can hold far more images than any request sends.
MAX_LISTED = 100
MAX_TYPE_LENGTH = 100


@dataclass(frozen=True)
class ImageLimits:
    per_result: int = MAX_IMAGES_PER_RESULT
    image_bytes: int = MAX_IMAGE_BYTES
    per_request: int = MAX_IMAGES_PER_REQUEST
    request_bytes: int = MAX_REQUEST_IMAGE_BYTES


def with_images_for(prompt: Prompt, model: ResolvedModel) -> Prompt:
    """``prompt`` with only the images ``model`` is given, and its manifest saying which."""
    provider = model.provider
    sees = provider.accepts_images(model.model_id)
    messages, uses = pass_images(
        prompt.messages,
        sees_images=sees,
        image_types=provider.image_types,
        cannot_see=_cannot_see(model),
    )
    return replace(prompt, messages=tuple(messages), manifest=replace(prompt.manifest, images=uses))


def _cannot_see(model: ResolvedModel) -> str:
    settings = model.provider.settings
    if settings.type == "local":
        return f"{model.ref} reads text only (a model run in ContextDesk is never given images)"
    return f"{model.ref} cannot see images (if it can, add it to visionModels of provider {settings.provider_id!r})"


def pass_images(
    messages: Sequence[ChatMessage],
    *,
    sees_images: bool,
    image_types: frozenset[str],
    cannot_see: str = "the model cannot see images",
    limits: ImageLimits | None = None,
) -> tuple[list[ChatMessage], tuple[ImageUse, ...]]:
    """``messages`` with each tool result's ``images`` cut to those passed, and what became of
    every image (oldest first, at most the newest ``MAX_LISTED``)."""
    limits = limits or ImageLimits()
    out = list(messages)
    uses: list[ImageUse] = []
    count = total = 0
    # Newest first: the request's totals go to the images the model most likely needs.
    for index in range(len(out) - 1, -1, -1):
        message = out[index]
        if message.role != "tool" or not message.images:
            continue
        passed: list[ImageInput] = []
        found: list[ImageUse] = []
        for number, image in enumerate(message.images, start=1):
            size = decoded_size(image.data)
            mime_type = image.mime_type[:MAX_TYPE_LENGTH]  # the server's word: kept bounded
            reason = ""
            if not sees_images:
                reason = cannot_see
            elif message.content.startswith(SUMMARY_PREFIX):
                reason = "its result was summarized with its older tool round (keepToolRounds)"
            elif image.mime_type not in image_types:
                reason = f"{mime_type or 'an unknown type'} is not a type this provider reads"
            elif len(passed) >= limits.per_result:
                reason = f"only {limits.per_result} images of a result are passed"
            elif size > limits.image_bytes:
                reason = f"over {human_size(limits.image_bytes)}"
            elif count >= limits.per_request or total + size > limits.request_bytes:
                reason = (
                    f"the request's images reached their limit ({limits.per_request} images, "
                    f"{human_size(limits.request_bytes)}; newer ones first)"
                )
            elif not _is_base64(image.data):  # checked last: only images about to be passed are decoded
                reason = "its data is not valid base64"
            else:
                count, total = count + 1, total + size
                passed.append(image)
            tool = message.tool_name or ""
            found.append(
                ImageUse(message.tool_call_id or "", tool, number, mime_type, size, not reason, reason)
            )
        out[index] = replace(message, images=tuple(passed))
        uses[:0] = found
    return out, tuple(uses[-MAX_LISTED:])


def _is_base64(data: str) -> bool:
    """Whether ``data`` decodes as base64 (an API refuses the whole request otherwise, and the
    chat would fail at every message after it)."""
    try:
        b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True
