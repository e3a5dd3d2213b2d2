package dev.sluice.bench.load;

import dev.sluice.bench.load.exactness.Exactness;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Writes a run's page: docs/benchmarks.md for a full run, a page of the same layout under {@code
 * benchmarks/target/} for a quick or partial one. The page is {@link BenchmarksPage}'s template
 * with three blocks filled from the run: {@code run} (the command, the date, the machine), {@code
 * targets}, and {@code results}: per scenario what it measures and against whom, one table with
 * over-admission beside every throughput, the like-for-like ratios and the plots. A scenario added
 * to {@link LoadBench#SCENARIOS} appears there with no change here.
 */
public final class Report {
  /** The over-admission cell of a row whose scenario does not count it. */
  static final String NOT_COUNTED = "not counted";

  private final List<String> header = new ArrayList<>();
  private final List<ScenarioResult> scenarios = new ArrayList<>();
  private final List<MemoryRow> memory = new ArrayList<>();
  private final List<String> memoryNotes = new ArrayList<>();
  private final List<TargetRow> targets = new ArrayList<>();
  private final Map<String, String> extras = new LinkedHashMap<>();

  public Report header(String line) {
    header.add(line);
    return this;
  }

  public Report scenario(ScenarioResult scenario) {
    scenarios.add(scenario);
    return this;
  }

  public Report memory(MemoryRow row) {
    memory.add(row);
    return this;
  }

  public Report memoryNote(String note) {
    memoryNotes.add(note);
    return this;
  }

  /** A target row; the page lists them in the order they were added. */
  public Report target(TargetRow row) {
    targets.add(row);
    return this;
  }

  /** Markdown printed right after the scenario {@code afterId}. */
  public Report extra(String afterId, String markdown) {
    extras.merge(afterId, markdown, String::concat);
    return this;
  }

  public List<ScenarioResult> scenarios() {
    return scenarios;
  }

  public List<MemoryRow> memoryRows() {
    return memory;
  }

  /** The scenario with {@code id}, if it ran. */
  public Optional<ScenarioResult> scenario(String id) {
    return scenarios.stream().filter(s -> s.id().equals(id)).findFirst();
  }

  /** Every Sluice contender that did not run, with its reason. */
  public List<String> sluiceNotRun() {
    List<String> lines = new ArrayList<>();
    for (ScenarioResult s : scenarios) {
      for (ContenderRun r : s.runs()) {
        if (ScenarioResult.isSluice(r) && !r.ran()) {
          lines.add(s.id() + " " + r.name() + ": " + r.notRunReason());
        }
      }
    }
    memory.stream()
        .filter(m -> m.store().startsWith("Sluice") && !m.ran())
        .forEach(m -> lines.add("S6 " + m.store() + ": " + m.notRunReason()));
    return lines;
  }

  /** Draws the plots into {@code imageDir} and writes the page into {@code doc}. */
  public void write(Path doc, Path imageDir) throws IOException {
    Map<String, String> blocks = new LinkedHashMap<>();
    blocks.put("run", String.join("\n", header));
    blocks.put("targets", targetTable());
    blocks.put("results", results(doc, imageDir));
    Files.createDirectories(doc.toAbsolutePath().getParent());
    Files.writeString(
        doc, BenchmarksPage.render(BenchmarksPage.template(), blocks), StandardCharsets.UTF_8);
  }

  private String targetTable() {
    StringBuilder md = new StringBuilder("| | target | measured | verdict |\n|---|---|---|---|\n");
    for (TargetRow t : targets) {
      md.append("| ")
          .append(t.id())
          .append(" | ")
          .append(t.target())
          .append(" | ")
          .append(t.measured())
          .append(" | ")
          .append(t.verdict())
          .append(" |\n");
    }
    return md.toString();
  }

  private String results(Path doc, Path imageDir) throws IOException {
    StringBuilder md = new StringBuilder();
    for (ScenarioResult s : scenarios) {
      md.append("\n### ").append(s.id()).append(" ").append(s.title()).append("\n");
      md.append(s.setup()).append("\n\n");
      s.table().ifPresentOrElse(md::append, () -> table(md, s));
      if (!s.measured().isEmpty() && !exactnessCounted(s)) {
        // Where this scenario does not count over-admission, say where it is counted (S9s for S9).
        s.overAdmissionNote().ifPresent(note -> md.append("\n").append(note).append("\n"));
      }
      // The ratios and the plots make one paragraph; the notes follow as a list.
      List<String> ratios = ratios(s);
      if (!ratios.isEmpty() || !s.measured().isEmpty()) {
        md.append("\n");
      }
      if (!ratios.isEmpty()) {
        md.append("Like for like, Sluice over the peer: ")
            .append(String.join("; ", ratios))
            .append(".\n");
      }
      if (!s.measured().isEmpty()) {
        md.append(plots(s, doc, imageDir)).append("\n");
      }
      if (!s.notes().isEmpty()) {
        // A list may follow the paragraph above without a blank line; not a table.
        md.append(s.measured().isEmpty() && ratios.isEmpty() ? "\n" : "");
        s.notes().forEach(note -> md.append("- ").append(note).append("\n"));
      }
      if (extras.containsKey(s.id())) {
        md.append("\n").append(extras.get(s.id()));
      }
    }
    md.append("\n### S6 Memory: bytes per active sliding_window key\n");
    md.append("| store | active keys | bytes per key | how counted |\n|---|---:|---:|---|\n");
    for (MemoryRow m : memory) {
      if (!m.ran()) {
        md.append("| ")
            .append(m.store())
            .append(" | | not run: ")
            .append(m.notRunReason())
            .append(" | |\n");
      } else {
        md.append(
            String.format(
                Locale.ROOT,
                "| %s | %,d | %.1f | %s |%n",
                m.store(),
                m.keys(),
                m.bytesPerKey(),
                m.method()));
      }
    }
    memoryNotes.forEach(note -> md.append("\n- ").append(note));
    return md.toString();
  }

  /**
   * Draws the scenario's plots and links them on one line: exactness (where counted), then
   * throughput and latency.
   */
  private static String plots(ScenarioResult s, Path doc, Path imageDir) throws IOException {
    String base = "bench-" + s.id().toLowerCase(Locale.ROOT);
    String rel = relative(doc, imageDir);
    List<String> links = new ArrayList<>();
    if (exactnessCounted(s)) {
      Charts.exactness(s, imageDir.resolve(base + "-exactness.png"));
      links.add(
          "![" + s.id() + " throughput and over-admission](" + rel + base + "-exactness.png)");
    }
    Charts.throughput(s, imageDir.resolve(base + "-throughput.png"));
    Charts.latency(s, imageDir.resolve(base + "-latency.png"));
    links.add("![" + s.id() + " throughput](" + rel + base + "-throughput.png)");
    links.add("![" + s.id() + " latency](" + rel + base + "-latency.png)");
    return String.join(" ", links);
  }

  private static boolean exactnessCounted(ScenarioResult s) {
    return s.measured().stream().anyMatch(r -> r.exactness().isPresent());
  }

  /**
   * One row per contender: throughput, and right beside it over-admission (where the scenario does
   * not count it, "not counted"), then the admitted rate where it is counted, the share answered in
   * the caller, the spread of the rounds, p99 and notes.
   */
  private static void table(StringBuilder md, ScenarioResult s) {
    boolean exactness = exactnessCounted(s);
    md.append("| contender | decisions/s | over-admitted |")
        .append(exactness ? " admitted/s |" : "")
        .append(" answered locally | spread | p99 µs | notes |\n");
    md.append("|---|---:|---:|").append(exactness ? "---:|" : "").append("---:|---:|---:|---|\n");
    for (ContenderRun r : s.runs()) {
      if (!r.ran()) {
        md.append("| ")
            .append(r.name())
            .append(" | not run: ")
            .append(r.notRunReason())
            .append(exactness ? " | |" : " |")
            .append(" | | | | |\n");
        continue;
      }
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %,.0f | %s |",
              r.name(),
              r.medianThroughput(),
              overAdmittedCell(r, s.overAdmissionNote().isPresent())));
      if (exactness) {
        md.append(String.format(Locale.ROOT, " %,.0f |", r.medianAdmitted()));
      }
      md.append(
          String.format(
              Locale.ROOT,
              " %s | ±%.0f %% | %.1f | %s |%n",
              localCell(r),
              r.spread() * 50,
              r.medianPercentileMicros(99),
              notes(r)));
    }
  }

  /** {@code 77.52 % (26.16 % from a lease)}, or empty for a row that answered nothing locally. */
  static String localCell(ContenderRun r) {
    if (r.localShare() <= 0) {
      return "";
    }
    long leased = r.total(Outcome.ALLOWED_LOCALLY);
    return String.format(Locale.ROOT, "%.2f %%", r.localShare() * 100)
        + (leased > 0
            ? String.format(
                Locale.ROOT, " (%.2f %% from a lease)", 100.0 * leased / r.totalOperations())
            : "");
  }

  /** {@code 0}, or {@code **1,234** (5.20 % of admitted)}; "not counted" where it was not. */
  /**
   * The over-admission cell: the count, or {@link #NOT_COUNTED}; "in the note" where the scenario
   * counts it in another run and says so below its table (S9's redis-benchmark reads no answer, its
   * saturating twin S9s counts).
   */
  static String overAdmittedCell(ContenderRun r, boolean countedElsewhere) {
    Optional<Exactness> e = r.exactness();
    if (e.isEmpty()) {
      return countedElsewhere ? "in the note" : NOT_COUNTED;
    }
    long over = e.get().overAdmitted();
    if (over == 0) {
      return "0";
    }
    return String.format(
        Locale.ROOT,
        "**%,d** (%s of admitted)",
        over,
        percent(over, Math.max(1, e.get().admitted())));
  }

  private static String percent(long part, long whole) {
    double p = 100.0 * part / whole;
    return p < 0.01 && part > 0 ? "<0.01 %" : String.format(Locale.ROOT, "%.2f %%", p);
  }

  private static String notes(ContenderRun r) {
    List<String> notes = new ArrayList<>();
    long denied = r.total(Outcome.DENIED) + r.total(Outcome.DENIED_LOCALLY);
    if (denied > 0) {
      notes.add(String.format(Locale.ROOT, "denied %.1f %%", 100.0 * denied / r.totalOperations()));
    }
    r.exactness()
        .ifPresent(
            e -> {
              if (e.overAdmitted() > 0) {
                notes.add(
                    String.format(
                        Locale.ROOT,
                        "over the bound on up to %,d key(s) per round, most on `%s` (%,d)",
                        e.keysOver(),
                        e.worstKey(),
                        e.worstKeyOver()));
              }
              notes.add(
                  String.format(
                      Locale.ROOT, "%s of admissions judged", percent(e.judged(), e.admitted())));
            });
    if (r.total(Outcome.ERROR) > 0) {
      notes.add(
          String.format(
              Locale.ROOT, "**errors %.2f %%** (%s)", r.errorShare() * 100, r.firstError()));
    }
    return String.join("; ", notes);
  }

  /**
   * Per Sluice contender, its ratio to each peer it compares with like for like ({@link
   * LikeForLike}), throughput and p99: {@code **Sluice client (leases off)**: 1.49× Bucket4j client
   * (p99 0.73×), 0.73× Redis + Lua (p99 1.71×)}; nothing for a row with no such peer.
   */
  static List<String> ratios(ScenarioResult s) {
    List<String> lines = new ArrayList<>();
    for (ContenderRun sluice : s.measured()) {
      if (!ScenarioResult.isSluice(sluice)) {
        continue;
      }
      List<String> against = new ArrayList<>();
      for (ContenderRun peer : s.measured()) {
        if (ScenarioResult.isSluice(peer)
            || peer.medianThroughput() == 0
            || !LikeForLike.comparable(sluice, peer)) {
          continue;
        }
        against.add(
            String.format(
                Locale.ROOT,
                "%s %s (p99 %s)",
                times(sluice.medianThroughput() / peer.medianThroughput()),
                peer.name(),
                times(
                    sluice.medianPercentileMicros(99)
                        / Math.max(0.001, peer.medianPercentileMicros(99)))));
      }
      if (!against.isEmpty()) {
        lines.add("**" + sluice.name() + "**: " + String.join(", ", against));
      }
    }
    return lines;
  }

  /**
   * A ratio with two decimals, or "{@literal <}0.01×" where two decimals would show a misleading 0.
   */
  static String times(double ratio) {
    return ratio < 0.01 ? "<0.01×" : String.format(Locale.ROOT, "%.2f×", ratio);
  }

  private static String relative(Path doc, Path imageDir) {
    Path from = doc.toAbsolutePath().getParent();
    String rel = from.relativize(imageDir.toAbsolutePath()).toString().replace('\\', '/');
    return rel.isEmpty() ? "" : rel + "/";
  }
}
