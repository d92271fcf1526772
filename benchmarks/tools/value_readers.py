"""What reading values with their meaning costs, and what the alternatives read.

    python -m benchmarks.tools.value_readers            # parser costs on dev evidence sentences
    python -m benchmarks.tools.value_readers --dateparser   # also dateparser on date layouts

Parser: the English dependency parser of ``judge.reading.syntax`` (spaCy 3.8, en_core_web_sm
3.8.0): the seconds to import spaCy, check the model files' digests and load the model; the
resident memory it adds; and milliseconds per sentence, parsing each distinct dev evidence
sentence that holds a number or a date (the sentences the value frames ask for), once each,
in a fresh process so that nothing is cached.

dateparser (``--dateparser``, where it is installed; it is no dependency of the project): on
every date layout the date reader reads (``judge.reading.values.dates``), whether
``dateparser.parse`` gives the same day, month and year, and its time per call. A date must
first be found in running text, which dateparser does not do (``search_dates`` reads numbers
of any kind as dates), so it could only replace the last step of the reader.

Judge: none. Time on the 2-core development machine: about a minute.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from collections.abc import Sequence

from benchmarks.common import DEV_CLAIMS, missing_data, read_jsonl

# Date layouts the reader reads, with the date each means (year, month, day).
LAYOUTS = {
    "3 March 2024": (2024, 3, 3),
    "March 3, 2024": (2024, 3, 3),
    "March 3 2024": (2024, 3, 3),
    "3rd of March 2024": (2024, 3, 3),
    "2024-03-03": (2024, 3, 3),
    "2024.03.03": (2024, 3, 3),
    "03.03.2024": (2024, 3, 3),
    "13/03/2024": (2024, 3, 13),
    "Mar. 3, 2024": (2024, 3, 3),
    "Sept. 28, 2023": (2023, 9, 28),
    "Fri 15 Feb 19": (2019, 2, 15),
}


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def value_sentences(limit: int) -> list[str]:
    from judge.reading import read

    found: dict[str, None] = {}
    for record in read_jsonl(DEV_CLAIMS):
        for passage in record["evidence"]:
            reading = read(passage["text"])
            spans = [(q.start, q.end) for q in reading.numbers]
            spans += [(d.start, d.end) for d in reading.owned.dates]
            for start, end, _ in reading.sentences.units:
                if any(start <= s < end for s, _ in spans):
                    found[reading.text[start:end]] = None
        if len(found) >= limit:
            break
    return list(found)[:limit]


def parser_costs(limit: int) -> None:
    sentences = value_sentences(limit)
    before = rss_mb()
    started = time.perf_counter()
    from judge.reading.syntax import load_parser, parse

    load_parser()
    loaded = time.perf_counter() - started
    after = rss_mb()
    times = []
    for sentence in sentences:
        t = time.perf_counter()
        parse(sentence)
        times.append(1000 * (time.perf_counter() - t))
    times.sort()
    print(f"parser: import, digest check and load {loaded:.2f} s; memory +{after - before:.0f} MB")
    print(
        f"parse of {len(times)} dev evidence sentences holding a value: median "
        f"{statistics.median(times):.1f} ms, p90 {times[int(0.9 * len(times))]:.1f} ms, "
        f"mean {statistics.mean(times):.1f} ms, "
        f"mean length {statistics.mean(len(s) for s in sentences):.0f} characters"
    )


def dateparser_layouts() -> None:
    try:
        import dateparser  # type: ignore[import-untyped]
    except ImportError:
        print("dateparser: not installed; skipped")
        return
    from judge.reading import read

    ours = theirs = 0
    times = []
    for text, wanted in LAYOUTS.items():
        dates = read(f"It happened on {text}.").owned.dates
        ours += any((d.year, d.month, d.day) == wanted for d in dates)
        t = time.perf_counter()
        parsed = dateparser.parse(text, languages=["en"])
        times.append(1000 * (time.perf_counter() - t))
        got = None if parsed is None else (parsed.year, parsed.month, parsed.day)
        theirs += got == wanted
        read_here = any((d.year, d.month, d.day) == wanted for d in dates)
        print(f"  {text!r}: date reader {'yes' if read_here else 'no'}, dateparser {got}")
    print(
        f"dateparser: {theirs}/{len(LAYOUTS)} layouts read right, median "
        f"{statistics.median(times):.2f} ms per call (first call "
        f"{times[0]:.0f} ms); the date reader: {ours}/{len(LAYOUTS)}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--sentences", type=int, default=500)
    parser.add_argument("--dateparser", action="store_true")
    args = parser.parse_args(argv)
    if (why := missing_data(DEV_CLAIMS)) is not None:
        print(why)
        return 0
    parser_costs(args.sentences)
    if args.dateparser:
        dateparser_layouts()
    return 0


if __name__ == "__main__":
    sys.exit(main())
