package dev.sluice.bench.lease;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A trace from a file: one request per line, {@code <time_ms> <holder> <key> [permits]}, separated
 * by spaces, tabs or commas, times in milliseconds from the start (decimals allowed) and not going
 * back, holders numbered from 0. Lines starting with {@code #} are comments, except two optional
 * headers: {@code # rule: <rule>} (as {@link Rules} reads it; otherwise {@code --rule} names it)
 * and {@code # holders: <n>} (otherwise the highest holder number plus one). For example:
 *
 * <pre>
 * # rule: token_bucket 50/1s
 * # holders: 2
 * 0.000 0 user-17
 * 0.250 1 user-17
 * 1.5,0,user-3,2
 * </pre>
 *
 * The file is read once, into memory.
 */
final class TraceFile {
  private TraceFile() {}

  /**
   * The trace in {@code file}; {@code rule} where the file names none.
   *
   * @throws IllegalArgumentException naming the line that cannot be read
   */
  static SimTrace read(Path file, String rule) throws IOException {
    List<SimTrace.Request> requests = new ArrayList<>();
    String fileRule = null;
    int holders = 0;
    int declaredHolders = 0;
    long last = 0;
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      String where = file + ":" + (i + 1);
      if (line.isEmpty()) {
        continue;
      }
      if (line.startsWith("#")) {
        String header = line.substring(1).strip();
        if (header.startsWith("rule:")) {
          fileRule = header.substring("rule:".length()).strip();
        } else if (header.startsWith("holders:")) {
          declaredHolders = Integer.parseInt(header.substring("holders:".length()).strip());
        }
        continue;
      }
      String[] fields = line.split("[\\s,]+");
      if (fields.length < 3 || fields.length > 4) {
        throw new IllegalArgumentException(
            where + ": expected '<time_ms> <holder> <key> [permits]', was '" + line + "'");
      }
      try {
        long at = Math.round(Double.parseDouble(fields[0]) * 1_000_000);
        int holder = Integer.parseInt(fields[1]);
        long permits = fields.length == 4 ? Long.parseLong(fields[3]) : 1;
        if (at < last || holder < 0 || permits < 1) {
          throw new IllegalArgumentException(
              where + ": times must not go back, holders and permits not below 0 and 1");
        }
        last = at;
        holders = Math.max(holders, holder + 1);
        requests.add(new SimTrace.Request(at, holder, fields[2], permits));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
      }
    }
    if (declaredHolders > 0 && declaredHolders < holders) {
      throw new IllegalArgumentException(
          file + ": declares " + declaredHolders + " holders, uses " + holders);
    }
    String chosen = fileRule != null ? fileRule : rule;
    Rules.parse(chosen); // fails here, naming the rule, rather than in the run
    List<SimTrace.Request> fixed = List.copyOf(requests);
    return new SimTrace(
        file.getFileName().toString(),
        "read from " + file,
        chosen,
        Math.max(1, Math.max(holders, declaredHolders)),
        fixed::iterator);
  }
}
