"""Every program wirecheck starts (a CLI under `certify --run`, a runtime under `stub`, a consumer under
`fuzz-consumer`; and its tooling's: git for `diff --against`, npm and npx for `import npm` and the series and live
tiers, pip, node, datamodel-code-generator, wirecheck itself in the series tool) is started and ended here, one way:

- no shell: an argv, its program resolved where the user is (`resolve_program`), never in the scratch folder;
- HOME, XDG_* and TMPDIR in a scratch folder removed afterwards (`Scratch`; by the reaper when wirecheck itself
  was killed and could not);
- a session and process group of its own, under a reaper process (`reaper.py`) that stays its parent: a child
  subreaper, so whatever the program starts, a `setsid` daemon that drops HOME and every variable included, is
  re-parented to it, and `Program.stop` ends all of it (SIGTERM to the group, a grace period, then SIGKILL to the
  group and to every process left under the reaper) and names each process that had left the group. If wirecheck
  itself dies (even by SIGKILL) the reaper sees its end of the socket close and ends everything the same way;
- writes that cannot block past a deadline (`Program.write`): a program that does not read its input cannot hang
  wirecheck;
- its output bounded: `run` keeps the first bytes of stdout in memory or streams them into a file (`git archive`'s
  tar), counting what it dropped;
- its stderr read to the end as it comes, its last bytes kept in bounded memory to quote its last words
  (`tail.Tail`, `tail.last_words`: "the program said: …" in every report of a failed run);
- SIGTERM and SIGHUP to wirecheck (a CI job's timeout, a closed terminal) end the run through `Terminated`, so
  every `finally` that owns a program runs (`terminated_by_signals`); a cleanup itself is never cut short
  (`shielded`).

Linux is where the reaper can adopt orphans; elsewhere only the process group is ended.

`program.py` starts and ends programs, `reaper.py` is the process that stays their parent, `tail.py` keeps the end
of their stderr, `signals.py` turns SIGTERM and SIGHUP into `Terminated` (small: every command imports it).
"""
