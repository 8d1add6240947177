"""An ``.argos`` experiment as a swarmstack experiment: what maps, translated (metres stay
metres, ARGoS's degrees become radians, "yaw,pitch,roll" orientations become a yaw), and every
element or attribute that does not, listed by XML path.

Random placements (``<distribute>``) of robots become the experiment's own ``placement``, drawn
from the run's seeded streams, so ``--seed`` varies them; what the experiment schema cannot
express (grid positions with random yaws, distributed boxes, cylinders and lights) is drawn here
from a stream of the file's ``random_seed``. Neither reproduces ARGoS's own random draws.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import numpy as np

import swarmstack.argos.toml_text as toml_text
from swarmstack.argos.xmltree import ArgosError, Node, Reader, one_line

# ARGoS entity tag → swarmstack robot type
ROBOTS = {"e-puck2": "epuck2", "crazyflie": "crazyflie", "rvr": "rvr"}
# robots ARGoS knows that swarmstack does not simulate: an experiment without them is another one
OTHER_ROBOTS = ("foot-bot", "e-puck", "eye-bot", "kheperaiv", "spiri", "drone", "pi-puck",
                "builderbot", "marxbot")

# sensor tag (a robot's plug-in prefix removed) → device, per robot type
SENSORS = {
    "epuck2": {"proximity": "proximity", "light": "light", "ground": "ground", "tof": "tof",
               "encoder": "encoders", "encoders": "encoders",
               "colored_blob_perspective_camera": "camera", "camera": "camera",
               "battery": "battery", "positioning": "positioning",
               "differential_steering": "differential_steering"},
    "crazyflie": {"positioning": "positioning", "battery": "battery",
                  "colored_blob_perspective_camera": "camera", "camera": "camera"},
    "rvr": {"proximity": "proximity", "lidar": "lidar", "ground": "ground_color",
            "ground_color": "ground_color", "color": "fixed_color", "quaternion": "quaternion",
            "imu": "imu", "accelerometer": "accelerometer", "gyroscope": "gyroscope",
            "light": "light", "velocity": "velocity", "locator": "locator",
            "positioning": "positioning", "differential_steering": "differential_steering"},
}
PREFIXES = ("epuck2_", "crazyflie_", "rvr_")
# sensors with ARGoS's noise_level (uniform noise on the normalised reading, as ours)
NOISE_LEVEL = {"proximity", "light", "ground", "tof", "encoders"}
# actuators every robot of the type has here: nothing to translate
ACTUATORS = {"differential_steering", "leds", "wheels", "rgb_leds", "quadrotor_position",
             "quadrotor_speed", "range_and_bearing"}
HARMLESS = ("implementation", "show_rays", "medium", "calibrated")
BATTERY_MODELS = {"simple": "simple", "linear": "linear", "cubic": "cubic",
                  "approx": "approximated", "approximated": "approximated"}
ANGLE_EPS = 1e-12


@dataclass
class Section:
    """One table of the experiment (``array``: an item of ``[[key]]``), from ``origin``."""

    key: str
    items: dict
    origin: Optional[Node] = None
    array: bool = False
    comment: str = ""


@dataclass
class Imported:
    """The translation of one ``.argos`` file."""

    source: str
    sections: list[Section]
    notes: list[str]                          # "XML-PATH: why", everything not translated
    origins: dict[str, Node] = field(default_factory=dict)   # TOML key path → element
    note_lines: list[int] = field(default_factory=list)       # the line of each note

    def data(self) -> dict:
        """The experiment as :func:`tomllib.loads` would return its TOML."""
        out: dict = {}
        for s in self.sections:
            if s.array:
                out.setdefault(s.key, []).append(dict(s.items))
            else:
                out[s.key] = dict(s.items)
        return out

    def toml(self) -> str:
        head = [f"Imported from {Path(self.source).name} by `swarmstack import`.",
                "Lengths in m, angles in rad, times in s (ARGoS's degrees converted)."]
        if self.notes:
            head.append("Not translated (ARGoS XML path: why):")
            head.extend(f"  {n}" for n in self.notes)
        else:
            head.append("Everything in the file was translated.")
        parts = [toml_text.comment("\n".join(head))]
        for s in self.sections:
            header = f"[[{s.key}]]" if s.array else f"[{s.key}]"
            parts.append(toml_text.table(header, s.items, s.comment))
        return "\n\n".join(parts) + "\n"

    def locate(self, problem: str) -> str:
        """A problem of the experiment schema (``SOURCE: key.path: message``) told as one of
        the ``.argos`` file: ``SOURCE:LINE: XML-PATH: message (key key.path)``."""
        head = f"{self.source}: "
        if not problem.startswith(head):
            return problem
        path, sep, message = problem[len(head):].partition(": ")
        best = max((k for k in self.origins
                    if path == k or path.startswith(k + ".") or path.startswith(k + "[")),
                   key=len, default=None)
        if not sep or best is None:
            return problem
        node = self.origins[best]
        return f"{self.source}:{node.line}: {node.path}: {message} (experiment key {path})"


class _Translator:
    def __init__(self, root: Node, source: str, argos_dir: Path, out_dir: Path):
        self.root = root
        self.r = Reader(source)
        self.source = source
        self.argos_dir = argos_dir
        self.out_dir = out_dir
        self.sections: list[Section] = []
        self.reasons: dict[tuple[int, Optional[str]], str] = {}
        self.whole: set[int] = set()       # elements noted with everything inside them
        self.referenced: set[str] = set()  # controllers some robot uses
        self.origins: dict[str, Node] = {}
        self.controllers: dict[str, dict] = {}
        self.names: set[str] = set()
        self.seed = 0
        self.groups = 0

    # -- bookkeeping ---------------------------------------------------------------------------
    def note(self, node: Node, reason: str, attr: Optional[str] = None, whole: bool = True):
        """``node`` (or its ``attr``) is not translated, because ``reason``."""
        self.reasons[(id(node), attr)] = reason
        if attr is None:
            if whole:
                node.mark_all()
                self.whole.add(id(node))
            node.used = True
        else:
            node.read.add(attr)

    def add(self, key: str, items: dict, origin: Node, array: bool = False, comment: str = ""):
        if array:
            index = sum(1 for s in self.sections if s.key == key)
            self.origins[f"{key}[{index}]"] = origin
        else:
            self.origins[key] = origin
        self.sections.append(Section(key, items, origin, array, comment))

    def path_for_toml(self, node: Node, attr: str, text: str) -> str:
        """A file named in the .argos file: relative to it (ARGoS reads it relative to the
        folder it is started from; here the file is the reference), written relative to the
        TOML file's folder."""
        full = self.resolve(node, attr, text)
        try:
            rel = os.path.relpath(os.path.normpath(full), self.out_dir)
        except ValueError:   # another drive (Windows)
            rel = str(full)
        return Path(rel).as_posix()

    def resolve(self, node: Node, attr: str, text: str) -> Path:
        """Where a file named in the .argos file is (``~`` and ``$VAR`` expanded, as ARGoS
        does)."""
        text = text.strip()
        if not text:
            raise self.r.error(node, "expected a file path, found an empty one", attr)
        full = Path(os.path.expandvars(os.path.expanduser(text)))
        return full if full.is_absolute() else self.argos_dir / full

    def unused(self) -> list[tuple[int, str]]:
        """(line, "XML-PATH: why") of everything not translated, in file order."""
        out: list[tuple[int, str]] = []

        def visit(n: Node):
            reason = self.reasons.get((id(n), None))
            if not n.used:
                out.append((n.line, f"{n.path}: {reason or 'not translated'}"))
                return
            if reason:
                out.append((n.line, f"{n.path}: {reason}"))
                if id(n) in self.whole:
                    return
            for a in n.attrs:
                r = self.reasons.get((id(n), a))
                if r is not None:
                    out.append((n.line, f"{n.attr_path(a)}: {r}"))
                elif a not in n.read:
                    out.append((n.line, f"{n.attr_path(a)}: not translated"))
            for c in n.children:
                visit(c)

        visit(self.root)
        return [(line, one_line(text)) for line, text in out]

    # -- the file ------------------------------------------------------------------------------
    def run(self) -> Imported:
        self.root.mark()
        self.framework(self.root.child("framework"))
        self.read_controllers(self.root.child("controllers"))
        arena = self.root.child("arena")
        if arena is None:
            raise self.r.error(self.root, "missing <arena>")
        self.arena(arena)
        for c in self.root.children:
            if c.tag == "media":
                self.media(c)
            elif c.tag not in ("framework", "controllers", "arena"):
                self.note(c, _SECTION_NOTES.get(c.tag, "not an ARGoS section swarmstack knows"))
        for cid, entry in self.controllers.items():
            if cid not in self.referenced:
                self.note(entry["node"], "no robot uses this controller")
        if not any(s.key == "robots" for s in self.sections):
            raise self.r.error(arena, "no robot of a type swarmstack simulates ("
                               + ", ".join(f"<{t}>" for t in ROBOTS) + ") in the arena")
        self.sections.sort(key=lambda s: _ORDER.index(s.key))
        left = self.unused()
        return Imported(self.source, self.sections, [text for _, text in left], self.origins,
                        [line for line, _ in left])

    def framework(self, fw: Optional[Node]):
        sim: dict = {}
        if fw is None:
            self.add("simulation", sim, self.root)
            return
        fw.mark()
        for c in fw.children:
            if c.tag == "experiment":
                c.mark()
                tps = self.r.integer(c, "ticks_per_second", None, 10_000)
                if tps < 1:
                    raise self.r.error(c, "expected at least 1 tick per second",
                                       "ticks_per_second")
                sim["ticks_per_second"] = tps
                length = self.r.number(c, "length", 0.0)
                if length < 0:
                    raise self.r.error(c, "expected a length of 0 (no end) or more seconds",
                                       "length")
                if length > 0:
                    sim["duration"] = length
                else:
                    self.note(c, "0 (no end in ARGoS) has no equivalent: the default duration "
                                 "applies (60 s; --ticks sets it)", "length")
                self.seed = self.r.integer(c, "random_seed", 0, 2 ** 32 - 1)
                sim["seed"] = self.seed
                if self.seed == 0:
                    self.note(c, "0 or absent (a seed from the clock in ARGoS): seed 0 here, "
                                 "--seed sets it", "random_seed")
            else:
                self.note(c, _FRAMEWORK_NOTES.get(c.tag, "not translated"))
        self.add("simulation", sim, fw.child("experiment") or fw)

    # -- controllers ---------------------------------------------------------------------------
    def read_controllers(self, node: Optional[Node]):
        if node is None:
            return
        node.mark()
        for c in node.children:
            c.mark()
            cid = self.r.text(c, "id")
            if cid in self.controllers:
                raise self.r.error(c, f"controller id {cid!r} is defined twice", "id")
            entry = {"node": c, "spec": None, "sensors": [], "actuators": []}
            params = c.child("params")
            if c.tag == "lua_controller":
                c.read.add("library")
                script = params.get("script") if params is not None else None
                if params is not None:
                    params.mark()
                if script is None or not script.strip():
                    raise self.r.error(params or c, "a Lua controller needs a script "
                                       "(<params script=\"controller.lua\"/>)",
                                       "script" if params is not None else None)
                entry["spec"] = {"lua": self.path_for_toml(params, "script", script)}
                # ARGoS hands every <params> attribute to the script as a string in
                # robot.params; the Lua controller's params do the same
                extra = {k: v for k, v in params.attrs.items() if k != "script"}
                if extra:
                    params.read.update(extra)
                    entry["spec"]["params"] = extra
                for p in params.children:
                    self.note(p, "not translated (ARGoS gives a Lua script only the "
                                 "attributes of <params>)")
            elif c.tag.startswith("buzz_controller"):
                c.read.add("library")
                entry["spec"] = {"buzz": self.buzz_script(c, params)}
            else:
                lib = c.get("library")
                self.note(c, f"a C++ controller{f' (library {lib})' if lib else ''} cannot run "
                             "here: its robots stand still; its sensors are still simulated",
                          whole=False)
                c.read.add("library")
                if params is not None:
                    self.note(params, "parameters of the C++ controller")
            for part in ("sensors", "actuators"):
                holder = c.child(part)
                if holder is not None:
                    holder.mark()
                    entry[part] = list(holder.children)
            for extra in c.children:
                if extra.tag not in ("params", "sensors", "actuators"):
                    self.note(extra, "not translated")
            self.controllers[cid] = entry

    def buzz_script(self, c: Node, params: Optional[Node]) -> str:
        if params is None:
            raise self.r.error(c, "a Buzz controller needs <params bytecode_file=\"x.bo\"/> "
                               "(or script=\"x.bzz\")")
        params.mark("debug_file")
        script = params.get("script")
        if script is not None:
            return self.path_for_toml(params, "script", script)
        bytecode = params.get("bytecode_file")
        if bytecode is None or not bytecode.strip():
            raise self.r.error(params, "a Buzz controller needs bytecode_file=\"x.bo\" (or "
                               "script=\"x.bzz\")")
        # bytecode is compiled from a .bzz; swarmstack runs the source, found next to it
        base = bytecode.strip()
        source = base[:-3] + ".bzz" if base.endswith(".bo") else base + ".bzz"
        if not self.resolve(params, "bytecode_file", source).is_file():
            raise self.r.error(params, f"swarmstack runs Buzz from source: expected {source!r}, "
                               "the script compiled into this bytecode, next to it",
                               "bytecode_file")
        return self.path_for_toml(params, "bytecode_file", source)

    # -- arena ---------------------------------------------------------------------------------
    def arena(self, a: Node):
        a.mark()
        sx, sy, _ = self.r.vector(a, "size")
        cx, cy, _ = self.r.vector(a, "center", 3, (0.0, 0.0, 0.0))
        if sx <= 0 or sy <= 0:
            raise self.r.error(a, "expected a positive size in x and y", "size")
        self.add("arena", {"size": [sx, sy], "center": [cx, cy]}, a)
        explicit: dict[tuple, list] = {}
        entities = {"box": self.box, "cylinder": self.cylinder, "light": self.light,
                    "floor": self.floor, "distribute": self.distribute}
        for c in a.children:
            if c.tag in entities:
                entities[c.tag](c)
            elif c.tag in ROBOTS:
                explicit.setdefault(self.signature(c), []).append(c)
            elif c.tag in OTHER_ROBOTS:
                raise self.r.error(c, f"swarmstack does not simulate the {c.tag}; its robot "
                                   f"types are {', '.join(f'<{t}>' for t in ROBOTS)}")
            else:
                self.note(c, "an entity swarmstack does not have")
        for entities in explicit.values():
            poses = [self.body_pose(e) for e in entities]
            self.robot_group(entities[0], {"kind": "explicit", "poses": poses}, len(entities),
                             entities)

    def body(self, node: Node) -> tuple[float, float, float]:
        """x, y, yaw of an entity's ``<body>``; height, pitch and roll noted if not zero."""
        b = node.child("body")
        if b is None:
            raise self.r.error(node, "missing <body position=\"x,y,z\" orientation=\"…\"/>")
        b.mark()
        x, y, z = self.r.vector(b, "position")
        yaw, pitch, roll = self.r.orientation(b)
        if z != 0:
            self.reasons[(id(b), "position")] = f"height z = {z:g} m not translated (bodies " \
                                                "stand on the floor here)"
        if abs(pitch) > ANGLE_EPS or abs(roll) > ANGLE_EPS:
            self.reasons[(id(b), "orientation")] = "pitch and roll not translated (bodies " \
                                                   "stand upright here)"
        return x, y, _wrap(yaw)

    def body_pose(self, node: Node) -> list[float]:
        node.mark("id")
        return list(self.body(node))

    def static_shape(self, node: Node) -> None:
        node.mark("id")
        movable = self.r.boolean(node, "movable", False)
        if movable:
            node.read.add("mass")
            self.reasons[(id(node), "movable")] = "movable objects are fixed here"

    def box(self, node: Node, pose=None):
        self.static_shape(node)
        size = list(self.r.vector(node, "size"))
        x, y, yaw = pose if pose is not None else self.body(node)
        self.add("boxes", {"center": [x, y], "size": size, "yaw": yaw}, node, array=True,
                 comment=_label(node))

    def cylinder(self, node: Node, pose=None):
        self.static_shape(node)
        radius = self.r.number(node, "radius")
        height = self.r.number(node, "height")
        x, y, _ = pose if pose is not None else self.body(node)
        self.add("cylinders", {"center": [x, y], "radius": radius, "height": height}, node,
                 array=True, comment=_label(node))

    def light(self, node: Node, position=None):
        node.mark("id", "medium", "orientation")
        pos = list(position if position is not None else self.r.vector(node, "position"))
        intensity = self.r.number(node, "intensity")
        color = self.r.color(node, "color")
        self.add("lights", {"position": pos, "intensity": intensity, "color": color}, node,
                 array=True, comment=_label(node))

    def floor(self, node: Node):
        node.mark("id")
        source = self.r.choice(node, "source", ("loop_functions", "image"))
        if source == "image":
            path = self.r.text(node, "path")
            self.add("floor", {"image": self.path_for_toml(node, "path", path)}, node)
        else:
            node.read.add("pixels_per_meter")
            self.note(node, "a floor painted by C++ loop functions cannot be computed here: "
                            "the floor is white", "source")

    def media(self, node: Node):
        node.mark()
        for c in node.children:
            if c.tag == "range_and_bearing":
                c.mark("id", "index", "grid_size")
                # ARGoS's one switch covers every body: walls, boxes, cylinders and robots
                occl = self.r.boolean(c, "check_occlusions", True)
                self.add("radio", {"occlusion": occl, "robots_occlude": occl}, c)
            elif c.tag == "led":
                c.mark("id", "index", "grid_size")   # LEDs are always visible to cameras here
            else:
                self.note(c, "a medium swarmstack does not have")

    # -- robots --------------------------------------------------------------------------------
    def signature(self, e: Node) -> tuple:
        """Robots placed one by one share a group when nothing but id and pose differs."""
        ctrl = e.child("controller")
        extras = tuple((c.tag, tuple(sorted(c.attrs.items()))) for c in e.children
                       if c.tag not in ("body", "controller"))
        return (e.tag, ctrl.attrs.get("config") if ctrl is not None else None,
                tuple(sorted((k, v) for k, v in e.attrs.items() if k != "id")), extras)

    def group_name(self, hint: str) -> str:
        name = re.sub(r"[^A-Za-z0-9_-]", "_", hint)[:60] or "robots"
        if not re.match(r"[A-Za-z_]", name):
            name = "robots_" + name
        base, k = name, 2
        while name in self.names:
            name, k = f"{base}_{k}", k + 1
        self.names.add(name)
        return name

    def robot_group(self, e: Node, placement: dict, count: int, members: list[Node],
                    placement_node: Optional[Node] = None):
        rtype = ROBOTS[e.tag]
        for m in members:
            m.mark("id")
            if m.child("controller") is not None:
                m.child("controller").mark("config")
        ctrl_ref = e.child("controller")
        if ctrl_ref is None:
            raise self.r.error(e, "missing <controller config=\"…\"/>")
        config = self.r.text(ctrl_ref, "config")
        if config not in self.controllers:
            known = ", ".join(sorted(self.controllers)) or "none defined"
            raise self.r.error(ctrl_ref, f"no controller with id {config!r} in <controllers> "
                               f"({known})", "config")
        ctrl = self.controllers[config]
        self.referenced.add(config)
        hint = e.attrs.get("id", config) if placement.get("kind") != "explicit" else \
            _id_prefix([m.attrs.get("id", "") for m in members]) or config
        group: dict = {"name": self.group_name(hint), "type": rtype}
        if placement.get("kind") != "explicit":
            group["count"] = count
        group["placement"] = placement
        if ctrl["spec"] is not None:
            group["controller"] = dict(ctrl["spec"])
        sensors, radio = self.devices(rtype, ctrl)
        for m in members:
            self.entity_options(m, rtype, sensors, radio)
        if sensors:
            group["sensors"] = sensors
        if radio:
            group["radio"] = radio if any(k != "enabled" for k in radio) else True
        index = self.groups
        self.groups += 1
        self.add("robots", group, e, array=True,
                 comment=f"<{e.tag}> " + (f"× {count} " if count > 1 else "")
                 + f"with controller {config!r}")
        if placement_node is not None:
            self.origins[f"robots[{index}].placement"] = placement_node
        # a problem with the script or a sensor is told where the controller says it
        cnode = ctrl["node"]
        self.origins[f"robots[{index}].controller"] = cnode.child("params") or cnode
        self.origins[f"robots[{index}].sensors"] = cnode.child("sensors") or cnode

    def devices(self, rtype: str, ctrl: dict) -> tuple[dict, dict]:
        names = SENSORS[rtype]
        sensors: dict = {}
        radio: dict = {}
        for s in ctrl["sensors"]:
            s.mark(*HARMLESS)
            tag = _strip(s.tag)
            if tag == "range_and_bearing":
                radio["enabled"] = True
                drop = self.r.number(s, "packet_drop_prob", 0.0)
                if not 0 <= drop <= 1:
                    raise self.r.error(s, "expected a probability 0 … 1", "packet_drop_prob")
                if drop:
                    radio["drop"] = drop
                continue
            device = names.get(tag)
            if device is None:
                self.note(s, f"the {rtype} here has no such sensor (it has: "
                             f"{', '.join(sorted(set(names.values())))})")
                continue
            level = self.r.number(s, "noise_level", 0.0) if device in NOISE_LEVEL else 0.0
            sensors[device] = {"noise": "uniform", "level": abs(level)} if level else True
        for act in ctrl["actuators"]:
            act.mark(*HARMLESS)
            tag = _strip(act.tag)
            if tag == "range_and_bearing":
                radio["enabled"] = True
            elif tag not in ACTUATORS:
                self.note(act, f"the {rtype} here has no such actuator")
        return sensors, radio

    def entity_options(self, e: Node, rtype: str, sensors: dict, radio: dict):
        rab_range = self.r.number(e, "rab_range", 0.0)
        if rab_range:
            radio["range"] = rab_range
        size = self.r.integer(e, "rab_data_size", 0, 65535)
        if size:
            radio["payload_bytes"] = size
        for c in e.children:
            if c.tag in ("body", "controller"):
                continue
            if _strip(c.tag) == "battery" and "battery" in SENSORS[rtype].values():
                c.mark()
                opts = {}
                start = self.r.number(c, "start_charge", -1.0)
                if start != -1.0:
                    opts["start_charge"] = start
                model = c.get("discharge_model") or c.get("model")
                if model is not None:
                    attr = "discharge_model" if "discharge_model" in c.attrs else "model"
                    if model not in BATTERY_MODELS:
                        raise self.r.error(c, f"expected one of {', '.join(BATTERY_MODELS)}, "
                                           f"found {model!r}", attr)
                    opts["model"] = BATTERY_MODELS[model]
                current = sensors.get("battery")
                sensors["battery"] = {**(current if isinstance(current, dict) else {}), **opts} \
                    or True
            else:
                self.note(c, "not translated")

    # -- distribute ----------------------------------------------------------------------------
    def distribute(self, d: Node):
        d.mark()
        pos, ori, ent = d.child("position"), d.child("orientation"), d.child("entity")
        for need, name in ((pos, "position"), (ori, "orientation"), (ent, "entity")):
            if need is None:
                raise self.r.error(d, f"missing <{name}>")
        for extra in d.children:
            if extra.tag not in ("position", "orientation", "entity"):
                self.note(extra, "not translated")
        for part in (pos, ori, ent):
            part.mark()
        quantity = self.r.integer(ent, "quantity", None, 200_000)
        trials = self.r.integer(ent, "max_trials", None, 10 ** 9)
        if ent.get("base_num") is not None:
            self.note(ent, "robots are numbered from 0 in each group here", "base_num")
        if not ent.children:
            raise self.r.error(ent, "no entity to distribute")
        what = ent.children[0]
        for extra in ent.children[1:]:
            self.note(extra, "ARGoS distributes only the first entity of <entity>")
        if quantity == 0:
            self.note(d, "quantity 0: nothing to place")
            return
        pmethod = self.r.choice(pos, "method", ("uniform", "gaussian", "constant", "grid"))
        omethod = self.r.choice(ori, "method", ("uniform", "gaussian", "constant"))
        rng = np.random.default_rng(np.random.SeedSequence([self.seed, _sibling_index(d)]))
        if what.tag in ROBOTS:
            placement = self.robot_placement(pos, pmethod, ori, omethod, quantity, rng,
                                             what.tag, trials)
            self.robot_group(what, placement, quantity, [what], d)
        elif what.tag in ("box", "cylinder", "light"):
            self.distribute_objects(what, pos, pmethod, ori, omethod, quantity, trials, rng)
        elif what.tag in OTHER_ROBOTS:
            raise self.r.error(what, f"swarmstack does not simulate the {what.tag}; its robot "
                               f"types are {', '.join(f'<{t}>' for t in ROBOTS)}")
        else:
            self.note(d, f"distributed <{what.tag}> entities are not translated")

    def yaw_of(self, ori: Node, method: str) -> dict:
        """The placement's yaw keys for an orientation generator (degrees → rad)."""
        if method == "constant":
            return {"yaw": _wrap(self.r.orientation(ori, "values")[0])}
        if method == "gaussian":
            mean = self.r.orientation(ori, "mean")[0]
            std = self.r.orientation(ori, "std_dev")[0]
            return {"yaw": _wrap(mean), "yaw_std": abs(std)} if std else {"yaw": _wrap(mean)}
        lo = self.r.orientation(ori, "min")[0]
        hi = self.r.orientation(ori, "max")[0]
        if hi < lo:
            raise self.r.error(ori, "min is above max", "max")
        if hi - lo >= 2 * math.pi - 1e-9:
            return {"yaw": "uniform"}
        if hi == lo:
            return {"yaw": _wrap(lo)}
        self.reasons[(id(ori), None)] = (f"yaw uniform over [{math.degrees(lo):g}°, "
                                         f"{math.degrees(hi):g}°] approximated by a gaussian "
                                         "of the same mean and spread")
        return {"yaw": _wrap((lo + hi) / 2), "yaw_std": (hi - lo) / math.sqrt(12)}

    def draw_yaws(self, ori: Node, method: str, n: int, rng) -> np.ndarray:
        keys = self.yaw_of(ori, method)
        yaw = keys["yaw"]
        if yaw == "uniform":
            return rng.uniform(-math.pi, math.pi, n)
        return yaw + (rng.normal(0.0, keys["yaw_std"], n) if "yaw_std" in keys
                      else np.zeros(n))

    def positions(self, pos: Node, method: str, n: int, rng) -> np.ndarray:
        """float[n, 3] positions drawn as ARGoS's generators would (not its numbers)."""
        if method == "constant":
            v = self.r.vector(pos, "values")
            return np.tile(v, (n, 1))
        if method == "uniform":
            lo, hi = np.array(self.r.vector(pos, "min")), np.array(self.r.vector(pos, "max"))
            if np.any(lo > hi):
                raise self.r.error(pos, "min is above max", "max")
            return rng.uniform(lo, hi, (n, 3))
        if method == "gaussian":
            mean = np.array(self.r.vector(pos, "mean"))
            std = np.abs(self.r.vector(pos, "std_dev"))
            return mean + rng.normal(0.0, 1.0, (n, 3)) * std
        return self.grid(pos, n)

    def grid(self, pos: Node, n: int) -> np.ndarray:
        cx, cy, cz = self.r.vector(pos, "center")
        dx, dy, dz = self.r.vector(pos, "distances")
        text = self.r.text(pos, "layout")
        parts = text.split(",")
        if len(parts) != 3 or not all(p.strip().isdigit() and 0 < int(p) <= 200_000
                                      for p in parts):
            raise self.r.error(pos, f"expected three whole numbers \"nx,ny,nz\" above 0, "
                               f"found {text!r}", "layout")
        nx, ny, nz = (int(p) for p in parts)
        if n > nx * ny * nz:
            raise self.r.error(pos, f"the layout has {nx * ny * nz} places for {n} entities",
                               "layout")
        k = np.arange(n)
        # ARGoS fills x first, then y, then z, from the +x +y +z corner
        return np.column_stack([cx + (nx - 1) * dx / 2 - (k % nx) * dx,
                                cy + (ny - 1) * dy / 2 - (k // nx) % ny * dy,
                                cz + (nz - 1) * dz / 2 - k // (nx * ny) * dz])

    def robot_placement(self, pos, pmethod, ori, omethod, n, rng, tag: str = "e-puck2",
                        trials: int | None = None) -> dict:
        if pmethod == "uniform":
            lo, hi = self.r.vector(pos, "min"), self.r.vector(pos, "max")
            if lo[2] or hi[2]:
                self.reasons[(id(pos), "min")] = "heights not translated (robots start on " \
                                                 "the floor)"
            if lo[0] < hi[0] and lo[1] < hi[1]:
                return {"kind": "uniform", "min": [lo[0], lo[1]], "max": [hi[0], hi[1]],
                        **self.yaw_of(ori, omethod)}
            return self.on_a_line(pos, ori, omethod, n, rng, tag, trials)
        if pmethod == "gaussian":
            mean = self.r.vector(pos, "mean")
            std = self.r.vector(pos, "std_dev")
            sx, sy = abs(std[0]), abs(std[1])
            if sx != sy:
                self.reasons[(id(pos), "std_dev")] = (
                    f"different spreads in x and y ({sx:g}, {sy:g} m) approximated by one, "
                    f"{math.sqrt((sx * sx + sy * sy) / 2):g} m")
            return {"kind": "gaussian", "mean": [mean[0], mean[1]],
                    "std": math.sqrt((sx * sx + sy * sy) / 2), **self.yaw_of(ori, omethod)}
        xyz = self.positions(pos, pmethod, n, rng)
        if pmethod == "constant" and n > 1:
            raise self.r.error(pos, f"{n} robots cannot all stand at one point (ARGoS fails "
                               "too)", "values")
        yaws = self.draw_yaws(ori, omethod, n, rng)
        if omethod != "constant":
            self.reasons[(id(ori), None)] = (f"yaws of robots on a {pmethod} drawn once from "
                                             "the file's random_seed (the same for every run)")
        return _explicit(xyz, yaws)

    def on_a_line(self, pos, ori, omethod, n, rng, tag: str, trials: int | None) -> dict:
        """A uniform ``<distribute>`` with min = max on an axis (robots on a line, or one at
        a point), which ARGoS accepts: the centres are drawn here, once, uniformly between min
        and max, each tried again (up to ``max_trials``) while it overlaps one drawn before."""
        from swarmstack.robots.base import get

        lo, hi = self.r.vector(pos, "min"), self.r.vector(pos, "max")
        if lo[0] > hi[0] or lo[1] > hi[1]:
            raise self.r.error(pos, "min is above max", "max")
        reach = 2 * get(ROBOTS[tag]).body.radius_m
        placed: list[tuple[float, float]] = []
        for _ in range(n):
            for _trial in range(max(1, trials or 1)):
                x, y = rng.uniform(lo[0], hi[0]), rng.uniform(lo[1], hi[1])
                if all(math.hypot(x - px, y - py) >= reach for px, py in placed):
                    break
            else:
                raise self.r.error(pos, f"could not place robot {len(placed) + 1} of {n} "
                                   f"between min and max without overlap in {trials or 1} "
                                   "trials (max_trials)", "max")
            placed.append((x, y))
        yaws = self.draw_yaws(ori, omethod, n, rng)
        self.reasons[(id(pos), None)] = ("robots on a line between min and max: their places "
                                         "drawn once from the file's random_seed (the same "
                                         "for every run)")
        return _explicit(placed, yaws)

    def distribute_objects(self, what, pos, pmethod, ori, omethod, n, trials, rng):
        # the experiment places no obstacles at random: they are drawn here, once
        what.mark("id")
        reach = 0.0
        if what.tag == "box":
            sx, sy, _ = self.r.vector(what, "size")
            reach = math.hypot(sx, sy) / 2
        elif what.tag == "cylinder":
            reach = self.r.number(what, "radius")
        placed: list[tuple[float, float, float]] = []
        for _ in range(n):
            for _trial in range(max(1, trials)):
                x, y, z = self.positions(pos, pmethod, 1, rng)[0] if pmethod != "grid" else \
                    self.grid(pos, len(placed) + 1)[len(placed)]
                if what.tag == "light" or all(math.hypot(x - px, y - py) >= 2 * reach
                                              for px, py, _ in placed):
                    break
            else:
                raise self.r.error(what, f"could not place {what.tag} {len(placed) + 1} of {n} "
                                   f"without overlap in {trials} trials")
            placed.append((_tidy(x), _tidy(y), _tidy(z)))
        yaws = self.draw_yaws(ori, omethod, n, rng)
        self.reasons[(id(pos.parent), None)] = (f"{n} <{what.tag}> drawn once from the file's "
                                                "random_seed (the same for every run)")
        for (x, y, z), yaw in zip(placed, yaws):
            if what.tag == "box":
                self.box(what, (x, y, _tidy(_wrap(float(yaw)))))
            elif what.tag == "cylinder":
                self.cylinder(what, (x, y, 0.0))
            else:
                self.light(what, (x, y, z))


_ORDER = ("simulation", "arena", "floor", "boxes", "cylinders", "lights", "radio", "robots")
_SECTION_NOTES = {
    "physics_engines": "swarmstack moves bodies with its own physics (no engine to pick)",
    "visualization": "no on-line visualisation here: `swarmstack run --view`, `swarmstack view`",
    "loop_functions": "loop functions are C++ code, which cannot run here"}
_FRAMEWORK_NOTES = {
    "system": "threads are chosen with --threads or SWARMSTACK_THREADS",
    "profiling": "no profiling output; summary.json has the run's timing"}


def _explicit(positions, yaws) -> dict:
    """An explicit placement: robots at ``positions`` (x, y first) facing ``yaws``."""
    return {"kind": "explicit", "poses": [[_tidy(p[0]), _tidy(p[1]), _tidy(_wrap(float(w)))]
                                          for p, w in zip(positions, yaws)]}


def _sibling_index(node: Node) -> int:
    """Which ``<distribute>`` of the arena this is (seeds its draws)."""
    parent = node.parent
    return [c for c in parent.children if c.tag == node.tag].index(node) if parent else 0


def _strip(tag: str) -> str:
    for p in PREFIXES:
        if tag.startswith(p):
            return tag[len(p):]
    return tag


def _wrap(angle: float) -> float:
    return math.atan2(math.sin(angle), math.cos(angle))


def _tidy(value) -> float:
    """A computed coordinate without its last-digit noise (0.225, not 0.22500000000000003)."""
    return float(round(float(value), 12)) + 0.0


def _label(node: Node) -> str:
    return f"<{node.tag} id={node.attrs['id']!r}>" if "id" in node.attrs else f"<{node.tag}>"


def translate(root: Node, source: str, argos_dir: Path, out_dir: Path) -> Imported:
    """The experiment of an ``.argos`` tree; files it names are written relative to
    ``out_dir`` (where the TOML goes). Raises :class:`ArgosError`."""
    try:
        return _Translator(root, source, Path(argos_dir), Path(out_dir)).run()
    except RecursionError:
        raise ArgosError([f"{source}: XML nested too deeply"]) from None


def _id_prefix(ids: list[str]) -> Optional[str]:
    """The prefix P when the ids are P0, P1 … in order: a group named P gives the robots
    these ids in ``robot.id``, as ARGoS does (else None)."""
    m = re.fullmatch(r"(.*?)0", ids[0]) if ids else None
    if m is None or not m.group(1):
        return None
    prefix = m.group(1)
    return prefix if ids == [f"{prefix}{k}" for k in range(len(ids))] else None
