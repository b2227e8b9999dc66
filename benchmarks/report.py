"""Results table (text and Markdown), JSON and PNG chart."""

from __future__ import annotations

import json
import os


def fmt_s(s: float | None) -> str:
    if s is None:
        return "-"
    for unit, scale in (("s", 1), ("ms", 1e-3), ("us", 1e-6)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


def _rate(r: dict, k: str) -> str:
    if r.get("gflops", {}).get(k) is not None:
        share = r.get("peak_share", {}).get(k)
        return f"{r['gflops'][k]:.3g} GFLOP/s" + (f" ({100 * share:.1f}% pk)" if share is not None else "")
    if r.get("gbps", {}).get(k) is not None:
        share = r.get("peak_share", {}).get(k)
        return f"{r['gbps'][k]:.3g} GB/s" + (f" ({100 * share:.0f}% cp)" if share is not None else "")
    return "-"


HEADER = ["workload", "gojax median [IQR]", "XLA median [IQR]", "gojax/XLA time", "target (time ratio)",
          "met", "gojax rate", "XLA rate", "max rel err"]


def rows(results: list[dict]) -> list[list[str]]:
    out = []
    for r in results:
        if "error" in r:
            out.append([r["name"], "ERROR: " + r["error"][:60]] + [""] * (len(HEADER) - 2))
            continue
        b = r["backends"]
        cell = {k: f"{fmt_s(b[k]['median_s'])} [{fmt_s(b[k]['iqr_s'])}]" for k in ("gojax", "xla")}
        tgt = r.get("target")
        out.append([
            r["name"], cell["gojax"], cell["xla"], f"{r['ratio']:.3g}",
            f"{tgt['text']} (<= {tgt['max_time_ratio']:.3g})" if tgt else "-",
            ("yes" if r["met"] else "NO") if tgt else "",
            _rate(r, "gojax"), _rate(r, "xla"),
            "-" if r.get("rel_err") is None else f"{r['rel_err']:.1e}" + (" !" if r.get("err_flag") else ""),
        ])
    return out


def text_table(results: list[dict]) -> str:
    rs = [HEADER] + rows(results)
    w = [max(len(r[i]) for r in rs) for i in range(len(HEADER))]
    lines = ["  ".join(c.ljust(w[i]) for i, c in enumerate(r)).rstrip() for r in rs]
    lines.insert(1, "  ".join("-" * x for x in w))
    return "\n".join(lines)


def markdown_table(results: list[dict]) -> str:
    rs = rows(results)
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(c.replace("|", "/") for c in r) + " |" for r in rs]
    return "\n".join(lines)


def markdown_doc(doc: dict) -> str:
    """Machine, build and results as Markdown (pasted into docs/performance.md)."""
    m, g = doc["machine"], doc.get("gojax", {})
    lines = [f"Run {doc['time_utc']}, jax {doc['jax_version']}, quick={doc['quick']}, "
             f"gojax library {g.get('sha256_16', '?')} built {g.get('mtime_utc', '?')} "
             f"({g.get('worker_threads', '?')} worker threads).", ""]
    lines += [f"- {d}" for d in m["derivation"]]
    lines += ["", f"Ratios: {doc['ratio']}. Rates: % of peak (pk) for FLOP/s, % of the measured numpy copy "
              "bandwidth (cp) for GB/s.", "", markdown_table(doc["results"]), ""]
    comp = [r for r in doc["results"] if r.get("kind") == "compile"]
    if comp:
        lines += ["Compile detail (medians): trace+lower is jit(f).lower(...), the same work for both; compile is "
                  "Lowered.compile() alone; first call is a fresh jit's first call (compile + one run + "
                  "transfers) minus its trace+lower time.", "",
                  "| program | backend | trace+lower | compile | first call - trace |", "|---|---|---|---|---|"]
        for r in comp:
            for k, v in r["detail"].items():
                lines.append(f"| {r['name']} | {k} | {fmt_s(v['lower_s']['median_s'])} | "
                             f"{fmt_s(v['compile_s']['median_s'])} | {fmt_s(v['first_call_s']['median_s'])} |")
        lines.append("")
    return "\n".join(lines)


def write_json(path: str, doc: dict) -> None:
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)


def write_png(path: str, results: list[dict], title: str) -> bool:
    """Draws the chart; False (after saying why) when matplotlib is not installed."""
    try:
        import matplotlib
    except ImportError:
        print(f"PNG not written ({path}): matplotlib is not installed (pip install matplotlib==3.10.7)")
        return False

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rs = [r for r in results if "ratio" in r]
    if not rs:
        return False
    fig, ax = plt.subplots(figsize=(9, 0.45 * len(rs) + 1.6))
    ys = range(len(rs))
    colors = []
    for r in rs:
        t = r.get("target")
        colors.append("tab:gray" if not t else ("tab:green" if r["met"] else "tab:red"))
    ax.barh(list(ys), [r["ratio"] for r in rs], color=colors)
    for y, r in zip(ys, rs):
        if r.get("target"):
            ax.plot([r["target"]["max_time_ratio"]] * 2, [y - 0.4, y + 0.4], color="black", lw=2, zorder=3)
        ax.text(r["ratio"], y, f" {r['ratio']:.3g}x", va="center", fontsize=8)
    ax.axvline(1.0, color="tab:blue", ls="--", lw=1)
    ax.set_xscale("log")
    ax.set_yticks(list(ys), [r["name"] for r in rs])
    ax.invert_yaxis()
    ax.set_xlabel("gojax time / XLA:CPU time (log scale; lower is better, < 1 means gojax is faster)")
    ax.set_title(title + "\nblack tick: target bound; green: target met, red: missed, gray: no target", fontsize=9)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True
