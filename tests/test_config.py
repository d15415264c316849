import pytest

from companion.config import Settings, load_settings, read_config
from companion.errors import ConfigError


def write(tmp_path, text):
    path = tmp_path / "companion.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_settings_from_the_file(tmp_path):
    path = write(tmp_path, '[companion]\nport = 8123\ncamera = 0\npin = "2468"\nstill_ms = 250\n')
    s = load_settings(read_config(path))
    assert (s.port, s.camera, s.pin, s.still_ms) == (8123, "0", "2468", 250)


def test_no_file_means_the_defaults():
    assert load_settings(read_config(None)) == Settings()


@pytest.mark.parametrize("text, words", [
    ('[companion]\nprot = 8000\n', "unknown setting 'prot'"),
    ('[companion]\nport = "8000"\n', "port .* must be a whole number, got '8000'"),  # not "a int"
    ('[companion]\nhost = 8000\n', "host .* must be a string, got 8000"),
    ('[companion]\nport = 70000\n', "port .* 1-65535"),
    ('[companion]\nstill_ms = 0\n', "still_ms"),
    ('companion = 3\n', r"\[companion\] .* must be a table"),
    ('[companion\n', "cannot be read"),
    # these were skipped in silence: the start went on with the defaults
    ('[compainon]\nport = 8123\n', r"unknown table \[compainon\]; a settings file holds \[companion\]"),
    ('port = 8123\n', "unknown setting 'port' outside any table"),
    ('[panel.buttonz]\nRoll = 17\n', r"unknown table \[panel.buttonz\]"),
])
def test_bad_settings_name_what_is_wrong(tmp_path, text, words):
    path = write(tmp_path, text)
    with pytest.raises(ConfigError, match=words):
        load_settings(read_config(path), str(path))


def test_missing_file_is_named(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        read_config(tmp_path / "nope.toml")
