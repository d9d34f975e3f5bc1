"""Every error path of the Python package: one-line messages, the right exception type."""
import os

import numpy as np
import pytest

import boids


def test_bad_value_names_the_key():
    with pytest.raises(ValueError, match=r"motion\.min_speed"):
        boids.World(count=10, motion_min_speed=9.0)


def test_unknown_keyword():
    with pytest.raises(TypeError, match="rules_radiuss"):
        boids.World(rules_radiuss=3.0)


def test_unknown_dotted_key_suggests():
    with pytest.raises(ValueError, match="rules.radius"):
        boids.World(overrides={"rules.radiuss": 3.0})


def test_messages_are_one_line():
    with pytest.raises(ValueError) as e:
        boids.World(count=10, world_size=-1.0)
    assert "\n" not in str(e.value) and "world.size" in str(e.value)


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.toml"):
        boids.World(tmp_path / "nope.toml")
    with pytest.raises(FileNotFoundError):
        boids.World.load(tmp_path / "nope.snap")


def test_directory_as_file(tmp_path):
    with pytest.raises(IsADirectoryError):
        boids.World.from_file(tmp_path)


def test_bad_scenario_file_is_a_value_error(tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text("[rules]\nradius = -3.0\n")
    with pytest.raises(ValueError, match=r"bad\.toml:2: rules\.radius"):
        boids.World(f)


def test_corrupt_snapshot(tmp_path):
    f = tmp_path / "bad.snap"
    f.write_bytes(b"not a snapshot at all")
    with pytest.raises(ValueError, match="bad.snap"):
        boids.World.load(f)


def test_save_to_missing_directory(tmp_path):
    w = boids.World(count=10)
    with pytest.raises(OSError):
        w.save(tmp_path / "no" / "such" / "dir.snap")


def test_set_state_shapes_and_dtypes():
    w = boids.World(count=10)
    p, v = w.positions.copy(), w.velocities.copy()
    with pytest.raises(ValueError, match="shape"):
        w.set_state(p[:5], v)
    with pytest.raises(ValueError, match="shape"):
        w.set_state(p[:, :2], v)
    with pytest.raises(TypeError, match="dtype"):
        w.set_state(p.astype(np.complex64), v)
    with pytest.raises(TypeError, match="dtype"):
        w.set_state(np.full((10, 3), "a"), v)
    bad = p.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError):
        w.set_state(bad, v)
    np.testing.assert_array_equal(w.positions, p)  # nothing changed


def test_remove_unknown_id_changes_nothing():
    w = boids.World(count=10)
    with pytest.raises(ValueError):
        w.remove([3, 99])
    assert w.count == 10
    with pytest.raises(ValueError):
        w.remove([-1])


def test_negative_steps():
    w = boids.World(count=10)
    with pytest.raises(ValueError):
        w.step(-1)


def test_add_needs_count_or_rows():
    w = boids.World(count=10)
    with pytest.raises(ValueError):
        w.add()
    with pytest.raises(ValueError):
        w.add(3, kind=7)


def test_unreadable_file(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root reads every file")
    f = tmp_path / "secret.toml"
    f.write_text("")
    f.chmod(0)
    with pytest.raises(PermissionError):
        boids.World(f)
