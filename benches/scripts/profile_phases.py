#!/usr/bin/env python3
"""Splits a `perf record --call-graph dwarf` profile of examples/batch_driver into the
phases of a batch quote, as in docs/PERFORMANCE.md. A sample counts for the first rule
whose markers all appear in its stack. Usage: profile_phases.py perf.data"""
import sys, subprocess, collections
data = sys.argv[1]
out = subprocess.run(['perf', 'script', '-i', data], capture_output=True, text=True).stdout
samples = out.split('\n\n')
rules = [
 ('rating: RateBook::rate', ['RateBook::rate']),
 ('card lookup: RateBook::card', ['RateBook::card']),
 ('catalog: Catalog::serves', ['Catalog::serves']),
 ('validate', ['quoting::validation::validate']),
 ('price: other (refusals, wire::Quote build, iteration)', ['quoting::pricing::price']),
 ('persist: serialise quotes (once)', ['quoting::persist', 'to_raw_value']),
 ('persist: sqlite insert (step, incl. cache spill)', ['quoting::persist']),
 ('sqlite commit (WAL write, checkpoint, fsync)', ['quote_items', 'commit']),
 ('response: assemble+copy', ['Response::json']),
 ('response: assemble', ['json_answer']),
 ('request: parse', ['parse_body']),
 ('drop of answer/intermediates', ['Service::answer', 'drop_in_place']),
 ('quote path: other', ['batch_quote_json']),
 ('handle: other', ['Service::answer']),
]
counts = collections.Counter(); total = 0
for s in samples:
    lines = s.strip().split('\n')
    if len(lines) < 2: continue
    text = s
    total += 1
    for name, marks in rules:
        if all(m in text for m in marks):
            counts[name] += 1; break
    else:
        counts['outside handle (setup, bench driver)'] += 1
handle = total - counts['outside handle (setup, bench driver)']
for name, _ in rules + [('outside handle (setup, bench driver)', None)]:
    c = counts[name]
    print('%-55s %6d  %5.1f%% of handle' % (name, c, 100.0*c/handle if name.startswith('outside')==False else 0))
print('samples', total, 'in handle', handle)
