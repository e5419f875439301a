"""Tiny random-weight vision-language checkpoints, built locally (no hub, no download).

Each builder writes a folder that ``from_pretrained(folder)`` loads exactly as it would load a
published checkpoint: config, safetensors weights, a fast tokenizer, an image processor and a
chat template. The shapes are those of the real families, only tiny (a few hundred KB, built in
about a second once transformers is imported), so lmms-eval's own wrappers run their whole path
on the CPU: image preprocessing, chat template with our prompts, generation, decoding.

The tokenizer is byte-level with no merges (every UTF-8 byte is a token), so any prompt in any
script tokenizes. Generation may emit only the printable ASCII bytes (saved in the checkpoint's
generation_config): a random model tends to repeat one token, and a reply of newlines reads as an
empty output, one of lone bytes as U+FFFD. What the model says is noise, which is all these tests
need.
"""

from __future__ import annotations

from pathlib import Path

# our own minimal chat templates (the real families' role markers, no system-prompt logic)
_QWEN_CHAT = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n"
    "{% if m['content'] is string %}{{ m['content'] }}{% else %}{% for c in m['content'] %}"
    "{% if c['type'] == 'image' %}<|vision_start|><|image_pad|><|vision_end|>"
    "{% elif c['type'] == 'text' %}{{ c['text'] }}{% endif %}{% endfor %}{% endif %}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
_LLAVA_CHAT = (
    "{% for m in messages %}{{ m['role'] | upper }}: "
    "{% if m['content'] is string %}{{ m['content'] }}{% else %}{% for c in m['content'] %}"
    "{% if c['type'] == 'image' %}<image>\n{% elif c['type'] == 'text' %}{{ c['text'] }}{% endif %}"
    "{% endfor %}{% endif %}\n{% endfor %}{% if add_generation_prompt %}ASSISTANT:{% endif %}"
)


def _byte_tokenizer(specials: list[str]):
    """A tokenizers.Tokenizer: byte-level BPE without merges, plus the given special tokens."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    tok = Tokenizer(models.BPE(vocab={s: i for i, s in enumerate(alphabet)}, merges=[]))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens(specials)
    return tok


def _unprintable_ids(tok) -> list[list[int]]:
    """Token ids of every byte but printable ASCII (suppressed in generation, see the module docstring)."""
    from tokenizers import pre_tokenizers

    printable = {tok.token_to_id(s) for s in pre_tokenizers.ByteLevel.alphabet() if len(s) == 1 and "!" <= s <= "~"}
    byte_ids = {tok.token_to_id(s) for s in pre_tokenizers.ByteLevel.alphabet()}
    return [[i] for i in sorted(byte_ids - printable)]


_QWEN_SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|vision_start|>", "<|vision_end|>",
                  "<|image_pad|>", "<|video_pad|>"]


def _qwen_tokenizer():
    """(tokenizers.Tokenizer, fast tokenizer, special ids) shared by the Qwen-VL families."""
    from transformers import Qwen2TokenizerFast

    tok = _byte_tokenizer(_QWEN_SPECIALS)
    ids = {s: tok.token_to_id(s) for s in _QWEN_SPECIALS}
    fast = Qwen2TokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                              unk_token=None, bos_token=None)
    fast.chat_template = _QWEN_CHAT
    return tok, fast, ids


def _qwen_token_ids(ids: dict) -> dict:
    return dict(image_token_id=ids["<|image_pad|>"], video_token_id=ids["<|video_pad|>"],
                vision_start_token_id=ids["<|vision_start|>"], vision_end_token_id=ids["<|vision_end|>"],
                bos_token_id=None, eos_token_id=ids["<|im_end|>"], pad_token_id=ids["<|endoftext|>"])


def _qwen_text(tok, ids: dict, **extra) -> dict:
    return dict(vocab_size=tok.get_vocab_size(), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=32768, tie_word_embeddings=True,
                bos_token_id=None, eos_token_id=ids["<|im_end|>"], pad_token_id=ids["<|endoftext|>"], **extra)


def _save(model, processor, fast, tok, ids: dict, folder: Path, eos: str, pad: str) -> Path:
    _generation_defaults(model, eos=ids[eos], pad=ids[pad], suppress=_unprintable_ids(tok))
    model.save_pretrained(folder)
    processor.save_pretrained(folder)
    fast.save_pretrained(folder)
    return folder


def build_tiny_qwen2_5_vl(folder: Path) -> Path:
    """A Qwen2.5-VL checkpoint (for lmms-eval's ``qwen2_5_vl``, ``huggingface`` wrappers)."""
    import torch
    from transformers import (Qwen2_5_VLConfig, Qwen2_5_VLForConditionalGeneration, Qwen2_5_VLProcessor,
                              Qwen2VLImageProcessor, Qwen2VLVideoProcessor)

    tok, fast, ids = _qwen_tokenizer()
    # few pixels per image: 4-64 patches of 28 px after merging
    images = Qwen2VLImageProcessor(min_pixels=28 * 28 * 4, max_pixels=28 * 28 * 64)
    processor = Qwen2_5_VLProcessor(image_processor=images, video_processor=Qwen2VLVideoProcessor(),
                                    tokenizer=fast, chat_template=_QWEN_CHAT)
    config = Qwen2_5_VLConfig(
        text_config=_qwen_text(tok, ids, rope_scaling={"type": "mrope", "mrope_section": [1, 1, 2]}),
        vision_config=dict(depth=2, hidden_size=32, intermediate_size=64, num_heads=4, out_hidden_size=32,
                           patch_size=14, spatial_merge_size=2, temporal_patch_size=2, window_size=56,
                           fullatt_block_indexes=[1]),
        **_qwen_token_ids(ids))
    torch.manual_seed(0)  # the same weights on every build
    model = Qwen2_5_VLForConditionalGeneration(config).eval()
    return _save(model, processor, fast, tok, ids, Path(folder), "<|im_end|>", "<|endoftext|>")


def build_tiny_qwen3_vl(folder: Path) -> Path:
    """A Qwen3-VL checkpoint (patch 16, deep-stack visual features) for lmms-eval's ``qwen3_vl``."""
    import torch
    from transformers import (Qwen2VLImageProcessor, Qwen3VLConfig, Qwen3VLForConditionalGeneration, Qwen3VLProcessor,
                              Qwen3VLVideoProcessor)

    tok, fast, ids = _qwen_tokenizer()
    images = Qwen2VLImageProcessor(patch_size=16, min_pixels=32 * 32 * 4, max_pixels=32 * 32 * 64)
    processor = Qwen3VLProcessor(image_processor=images, video_processor=Qwen3VLVideoProcessor(patch_size=16),
                                 tokenizer=fast, chat_template=_QWEN_CHAT)
    config = Qwen3VLConfig(
        text_config=_qwen_text(tok, ids, head_dim=8,
                               rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [1, 1, 2],
                                                "mrope_interleaved": True}),
        vision_config=dict(depth=2, hidden_size=32, intermediate_size=64, num_heads=4, out_hidden_size=32,
                           patch_size=16, spatial_merge_size=2, temporal_patch_size=2, num_position_embeddings=64,
                           deepstack_visual_indexes=[1]),
        **_qwen_token_ids(ids))
    torch.manual_seed(0)
    model = Qwen3VLForConditionalGeneration(config).eval()
    return _save(model, processor, fast, tok, ids, Path(folder), "<|im_end|>", "<|endoftext|>")


def build_tiny_internvl(folder: Path) -> Path:
    """An InternVL-HF checkpoint (InternViT tower, pixel shuffle, Qwen2 text) for ``internvl_hf``."""
    import torch
    from transformers import (GotOcr2ImageProcessor, InternVLConfig, InternVLForConditionalGeneration,
                              InternVLProcessor, InternVLVideoProcessor, Qwen2TokenizerFast)

    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<img>", "</img>", "<IMG_CONTEXT>", "<video>"]
    tok = _byte_tokenizer(specials)
    ids = {s: tok.token_to_id(s) for s in specials}
    fast = Qwen2TokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>", unk_token=None,
                              bos_token=None, extra_special_tokens={
                                  "start_image_token": "<img>", "end_image_token": "</img>",
                                  "context_image_token": "<IMG_CONTEXT>", "video_token": "<video>"})
    chat = _QWEN_CHAT.replace("<|vision_start|><|image_pad|><|vision_end|>", "<IMG_CONTEXT>")
    fast.chat_template = chat
    # one 28 px tile per image, one token after the 0.5 pixel shuffle
    images = GotOcr2ImageProcessor(size={"height": 28, "width": 28}, crop_to_patches=False, max_patches=1)
    processor = InternVLProcessor(image_processor=images, tokenizer=fast, image_seq_length=1, chat_template=chat,
                                  video_processor=InternVLVideoProcessor(size={"height": 28, "width": 28}))
    text = _qwen_text(tok, ids, model_type="qwen2")
    config = InternVLConfig(
        vision_config=dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                           image_size=[28, 28], patch_size=[14, 14]),
        text_config=text, image_token_id=ids["<IMG_CONTEXT>"], image_seq_length=1, downsample_ratio=0.5)
    torch.manual_seed(0)
    model = InternVLForConditionalGeneration(config).eval()
    return _save(model, processor, fast, tok, ids, Path(folder), "<|im_end|>", "<|endoftext|>")


def build_tiny_llava(folder: Path) -> Path:
    """A LLaVA-1.5-shaped checkpoint (CLIP vision tower + Llama) for lmms-eval's ``llava_hf``."""
    import torch
    from transformers import (CLIPImageProcessor, CLIPVisionConfig, LlamaConfig, LlavaConfig,
                              LlavaForConditionalGeneration, LlavaProcessor, PreTrainedTokenizerFast)

    folder = Path(folder)
    specials = ["<s>", "</s>", "<pad>", "<image>"]
    tok = _byte_tokenizer(specials)
    ids = {s: tok.token_to_id(s) for s in specials}
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", pad_token="<pad>")
    fast.add_special_tokens({"additional_special_tokens": ["<image>"]})
    fast.chat_template = _LLAVA_CHAT
    images = CLIPImageProcessor(size={"shortest_edge": 28}, crop_size={"height": 28, "width": 28})
    processor = LlavaProcessor(image_processor=images, tokenizer=fast, patch_size=14,
                               vision_feature_select_strategy="default", chat_template=_LLAVA_CHAT,
                               num_additional_image_tokens=1)
    config = LlavaConfig(
        vision_config=CLIPVisionConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                                       image_size=28, patch_size=14, projection_dim=32),
        text_config=LlamaConfig(vocab_size=tok.get_vocab_size(), hidden_size=32, intermediate_size=64,
                                num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                                max_position_embeddings=32768, bos_token_id=ids["<s>"], eos_token_id=ids["</s>"],
                                pad_token_id=ids["<pad>"]),
        image_token_index=ids["<image>"], vision_feature_select_strategy="default", vision_feature_layer=-1,
        pad_token_id=ids["<pad>"])
    torch.manual_seed(0)
    model = LlavaForConditionalGeneration(config).eval()
    return _save(model, processor, fast, tok, ids, folder, "</s>", "<pad>")


def _generation_defaults(model, *, eos: int, pad: int, suppress: list[list[int]]) -> None:
    """Saved in generation_config.json, so every wrapper's generate() call gets them."""
    config = model.generation_config
    config.eos_token_id, config.pad_token_id, config.bos_token_id = eos, pad, None
    config.bad_words_ids = suppress


def local_benchmark_data(root: Path) -> dict[str, str]:
    """One or two items of every benchmark in its official local layout, made by the package's
    generators and the tests' fixtures; returns the environment variables that point at them (ABACUS
    needs its detector set to synthetic_test: tests/task_settings.py)."""
    import sys

    tests = Path(__file__).resolve().parents[1]
    for folder in (tests / "dod", tests / "grade"):
        if str(folder) not in sys.path:
            sys.path.insert(0, str(folder))
    import dod_fixtures
    import grade_fixtures

    from lmms_plugins.tasks.abacus import synthetic
    from lmms_plugins.tasks.cwi.generate import main as make_cwi

    root = Path(root)
    # alignment shows two images, color_count one
    assert make_cwi(["--tasks", "alignment,color_count", "--n", "1", "--seed", "9", "--out", str(root / "cwi")]) == 0
    dod = dod_fixtures.make_dataset(root / "dod", pairs_per_category=1, maze_pairs=1)
    grade = grade_fixtures.make_dataset(root / "GRADE")
    assert synthetic.main(["--out", str(root / "abacus"), "--n", "1", "--seed", "4"]) == 0
    return {"LMMS_PLUGINS_CWI_ROOT": str(root / "cwi"), "LMMS_PLUGINS_DOD_ROOT": str(dod),
            "LMMS_PLUGINS_GRADE_ROOT": str(grade), "LMMS_PLUGINS_ABACUS_ROOT": str(root / "abacus"),
            "LMMS_PLUGINS_DATA_ROOT": ""}
