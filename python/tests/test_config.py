"""proxima.Config: layers over the defaults as the command's -c and --set
build them, its INI and typed parameters, and proxima.plugins()."""

import pytest

import proxima
from conftest import cli


def test_defaults_as_the_command_prints_them():
    assert str(proxima.Config()) == cli("config")[1]


def test_layers_as_the_command_builds_them():
    cfg = proxima.Config.read("robust", **{"rfactor.nu": 0.9})
    assert str(cfg) == cli("config", "-c", "robust", "--set",
                           "rfactor.nu=0.9")[1]
    cfg = proxima.Config(friction="box", **{"solver.max_sweeps": 500})
    assert str(cfg) == cli("config", "--set", "friction.plugin=box",
                           "--set", "solver.max_sweeps=500")[1]
    assert cfg.layers == (("set", "friction.plugin=box", None),
                          ("set", "solver.max_sweeps=500", None))
    assert cfg.params()["friction"]["plugin"] == "box"
    assert cfg.params()["solver"]["max_sweeps"] == 500


def test_ini_reads_back_to_the_same_config():
    cfg = proxima.Config.read("pgssm", {"rfactor.nu": 0.1 + 0.2,
                                        "solver.check": True})
    back = proxima.Config.from_string(str(cfg))
    assert back.params() == cfg.params()
    assert str(back).split("\n", 1)[1] == str(cfg).split("\n", 1)[1]


def test_values_are_written_exactly():
    x = 0.1 + 0.2  # 0.30000000000000004
    cfg = proxima.Config().set("rfactor.nu", x).set("solver.check", True)
    assert cfg.params()["rfactor"]["nu"] == x
    assert cfg.layers[0] == ("set", "rfactor.nu=0.30000000000000004", None)
    assert cfg.layers[1] == ("set", "solver.check=on", None)
    assert cfg.params()["solver"]["check"] is True


def test_params_typed():
    p = proxima.Config().params()
    assert list(p) == list(proxima.SECTIONS)
    assert p["solver"]["abs_tol"] == 5e-9 and p["solver"]["merit"] == "fc3d"
    assert isinstance(p["solver"]["max_sweeps"], int)
    assert p["friction"] == {"plugin": "disc"}
    assert p["accelerator"] == {"plugin": "none"}


def test_a_later_plugin_drops_the_earlier_keys():
    cfg = proxima.Config().set("rfactor.nu", 0.5).set("rfactor", "global")
    assert cfg.params()["rfactor"]["plugin"] == "global"
    assert str(cfg) == cli("config", "--set", "rfactor.nu=0.5", "--set",
                           "rfactor.plugin=global")[1]


def test_from_string_names_its_text_in_messages():
    with pytest.raises(proxima.Error) as e:
        proxima.Config.from_string("[solver]\nmax_sweeps = -3\n", "mine")
    assert "mine" in str(e.value) and "max_sweeps" in str(e.value)


@pytest.mark.parametrize("key,value", [("rfactor.nuu", 1),
                                       ("friction.plugin", "nope"),
                                       ("rfactor.nu", "abc")])
def test_refusals_as_the_command_says(key, value):
    cfg = proxima.Config()
    with pytest.raises(proxima.Error) as e:
        cfg.set(key, value)
    status, _, err = cli("config", "--set", f"{key}={value}", check=False)
    assert status == 2 and err == f"proxima: {e.value}\n"
    assert cfg.layers == ()  # unchanged


def test_refusals_of_names_and_values():
    status, _, err = cli("config", "-c", "nosuch", check=False)
    with pytest.raises(proxima.Error) as e:
        proxima.Config.read("nosuch")
    assert status == 2 and err == f"proxima: {e.value}\n"
    with pytest.raises(proxima.Error) as e:
        proxima.Config(max_sweeps=3)
    assert str(e.value) == ("max_sweeps: expected SECTION.KEY, or a "
                            "plugin's section (friction, ordering, rfactor, "
                            "scheduler, accelerator) for its plugin")
    with pytest.raises(proxima.Error) as e:
        proxima.Config().set("rfactor.nu", [1])
    assert str(e.value) == ("rfactor.nu: expected a number, a bool or a "
                            "string, got list")
    with pytest.raises(proxima.Error) as e:
        proxima.Config().set("rfactor.nu", "1\n[solver]")
    assert str(e.value).startswith("rfactor.nu: a value of one line")


def test_plugins_as_the_command_lists_them():
    found = proxima.plugins()
    names = {(p.kind, p.name) for p in found}
    listed = {tuple(line.split()[:2]) for line in cli("plugins")[1].splitlines()
              if line and not line.startswith(" ")}
    assert names == listed - {("solver", "(core)")}
    disc = next(p for p in found if (p.kind, p.name) == ("friction", "disc"))
    assert disc.summary and disc.doc and disc.path.endswith("friction_disc.so")
    local = next(p for p in found if (p.kind, p.name) == ("rfactor", "local"))
    nu = next(p for p in local.params if p.key == "nu")
    assert nu.type == "real" and nu.help
    assert proxima.refused_plugins() == []
