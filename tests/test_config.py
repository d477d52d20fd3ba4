"""Configuration: presets, validation naming the key, YAML file, precedence."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline import ChunkConfig, ConfigError, load_config, make_config


def test_medium_defaults() -> None:
    c = make_config()
    assert (c.section_target, c.section_max, c.snippet_target, c.snippet_max) == (
        1700,
        2000,
        420,
        512,
    )
    assert (c.section_overlap, c.snippet_overlap) == (120, 80)
    assert c == ChunkConfig()


def test_presets_and_overlap() -> None:
    small = make_config({"preset": "small", "overlap": "high"})
    assert small.snippet_max < 512
    assert small.section_overlap == 2 * make_config({"preset": "small"}).section_overlap
    assert make_config({"overlap": "none"}).snippet_overlap == 0


def test_explicit_sizes_win_over_preset() -> None:
    assert make_config({"preset": "large", "snippet_target": 300}).snippet_target == 300


@pytest.mark.parametrize(
    ("values", "key"),
    [
        ({"bogus": 1}, "bogus"),
        ({"preset": "huge"}, "preset"),
        ({"snippet_max": 10}, "snippet_max"),
        ({"heading_depth": 9}, "heading_depth"),
        ({"frontmatter": "eat"}, "frontmatter"),
        ({"min_tokens": "many"}, "min_tokens"),
        ({"estimator_bias": "poetry"}, "estimator_bias"),
    ],
)
def test_bad_values_name_the_key(values: dict[str, object], key: str) -> None:
    with pytest.raises(ConfigError) as err:
        make_config(values)
    assert err.value.key == key
    assert key in str(err.value)


def test_yaml_file_then_flags(tmp_path: Path) -> None:
    f = tmp_path / "folio.yaml"
    f.write_text("chunk:\n  preset: small\n  concepts: 3\n")
    c = load_config(f, {"concepts": 7, "overlap": None})
    assert c.preset == "small" and c.concepts == 7 and c.snippet_max == 256


def test_yaml_unknown_keys(tmp_path: Path) -> None:
    f = tmp_path / "folio.yaml"
    f.write_text("chunk:\n  sise: 3\n")
    with pytest.raises(ConfigError, match="sise"):
        load_config(f)
    f.write_text("chonk:\n  preset: small\n")
    with pytest.raises(ConfigError, match="chonk"):
        load_config(f)
    f.write_text("chunk: [1, 2\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(f)


def test_env_names_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f = tmp_path / "c.yaml"
    f.write_text("chunk:\n  heading_depth: 2\n")
    monkeypatch.setenv("FOLIO_CONFIG", str(f))
    assert load_config().heading_depth == 2


def test_frozen() -> None:
    with pytest.raises(AttributeError):
        ChunkConfig().preset = "small"  # type: ignore[misc]


def test_dense_model_from_config_relative_to_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pipeline.index.vectors import MODEL_ENV, model_dir
    from pipeline.shared.config_files import dense_model

    f = tmp_path / "conf" / "folio.yaml"
    f.parent.mkdir()
    f.write_text("dense:\n  model: models/minilm\n")
    assert dense_model(f) == (tmp_path / "conf" / "models" / "minilm").resolve()
    monkeypatch.setenv("FOLIO_CONFIG", str(f))
    monkeypatch.delenv(MODEL_ENV, raising=False)
    assert model_dir() == (tmp_path / "conf" / "models" / "minilm").resolve()
    monkeypatch.setenv(MODEL_ENV, str(tmp_path / "elsewhere"))
    assert model_dir() == tmp_path / "elsewhere"
    f.write_text("dense:\n  modle: x\n")
    with pytest.raises(ConfigError, match=r"dense\.modle"):
        dense_model(f)
    f.write_text("chunk:\n  preset: small\n")
    assert dense_model(f) is None
