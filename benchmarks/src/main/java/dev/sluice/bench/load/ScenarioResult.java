package dev.sluice.bench.load;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One scenario's measured contenders (or why some did not run), its setup in words and any notes
 * the report must carry. Contenders whose name starts with {@code "Sluice"} are Sluice; every other
 * one is a peer, and the report prints the ratio of each Sluice contender to each peer.
 */
public final class ScenarioResult {
  private final String id;
  private final String title;
  private final String setup;
  private final List<ContenderRun> runs = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();
  private @Nullable String overAdmissionNote;
  private @Nullable String table;

  public ScenarioResult(String id, String title, String setup) {
    this.id = id;
    this.title = title;
    this.setup = setup;
  }

  public String id() {
    return id;
  }

  public String title() {
    return title;
  }

  public String setup() {
    return setup;
  }

  public List<ContenderRun> runs() {
    return runs;
  }

  public List<String> notes() {
    return notes;
  }

  public ScenarioResult add(ContenderRun run) {
    runs.add(run);
    return this;
  }

  public ScenarioResult note(String note) {
    notes.add(note);
    return this;
  }

  /**
   * Says where this scenario's over-admission is counted when its own rounds cannot count it (a
   * load generator that reads no answer's meaning): the report prints it instead of its "not
   * counted" note.
   */
  public ScenarioResult overAdmissionCountedElsewhere(String sentence) {
    overAdmissionNote = sentence;
    return this;
  }

  public Optional<String> overAdmissionNote() {
    return Optional.ofNullable(overAdmissionNote);
  }

  /**
   * The scenario's own table, printed instead of the one row per contender: for a measurement whose
   * rows are not contenders (S10: two designs, each measured in two regions at once and judged over
   * both).
   */
  public ScenarioResult table(String markdown) {
    table = markdown;
    return this;
  }

  public Optional<String> table() {
    return Optional.ofNullable(table);
  }

  public Optional<ContenderRun> run(String name) {
    return runs.stream().filter(r -> r.name().equals(name) && r.ran()).findFirst();
  }

  public static boolean isSluice(ContenderRun run) {
    return run.name().startsWith("Sluice");
  }

  public List<ContenderRun> measured() {
    return runs.stream().filter(ContenderRun::ran).toList();
  }
}
