package dev.sluice.core.rules;

import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Rule;
import dev.sluice.core.config.ConfigFileException;
import dev.sluice.core.config.StrictYaml;
import dev.sluice.core.config.YamlLocations;
import dev.sluice.core.spec.LimitSpec;
import dev.sluice.core.spec.PolicySpec;
import dev.sluice.core.spec.RuleSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Reads the rules file of docs/configuration.md: a list of rules, each a {@code name} and the
 * fields of a policy ({@link PolicySpec}), so that a rule in the file accepts exactly what {@code
 * PUT /v1/rules/{name}} accepts.
 *
 * <pre>
 * rules:
 *   - name: login            # required, [A-Za-z0-9_.-]{1,64}, unique in the file
 *     algorithm: sliding_window   # default sliding_window
 *     limit: 5               # required, permits per window
 *     window: 1m             # required: 250ms, 1s, 1m, 1h, 1d or ISO-8601 (PT1M)
 *     burst: 20              # token_bucket, gcra, leaky_bucket; default depends on the algorithm
 *     buckets: 60            # sliding_buckets only
 *     shadow: false          # decide and count, never deny
 *     countDenied: false     # denied requests consume too
 *   - name: payments         # several limits: admitted only if every one admits
 *     limits:                # instead of limit, window, algorithm, burst, buckets
 *       - {limit: 5, window: 1s}
 *       - {limit: 100, window: 1h, algorithm: sliding_log}
 * </pre>
 *
 * <p>The file is read by {@link StrictYaml}, the one reader of Sluice's configuration files, and
 * nothing is lenient: an unknown or repeated field, a second rule of the same name, a value of the
 * wrong type (a quoted number, a window without a unit) are all errors, because a rate limit that
 * silently means something other than what was written is worse than one that refuses to load.
 * Every error is a {@link ConfigFileException} naming the file, line, column and field, and the
 * rule by name where the field is not the name itself:
 *
 * <pre>
 * rules.yaml:7:12: rules[1].limit: must be between 1 and 1000000000, was 0 (rule 'api')
 * rules.yaml:9:9: rules[2].limits[1].window: 'soon' is not a duration; ... (rule 'payments')
 * </pre>
 *
 * Value checks are {@link PolicySpec#toPolicy}'s, the same as REST's.
 */
public final class RulesFile {
  /** The file: one list. */
  private record File(@Nullable List<RuleSpec> rules) {}

  /** {@code rules[3]} and what follows it, from a path. */
  private static final Pattern IN_RULE = Pattern.compile("^rules\\[(\\d+)](.*)$");

  /** A path whose value is a window: {@code rules[0].window}, {@code rules[0].limits[1].window}. */
  private static final Pattern WINDOW =
      Pattern.compile("^rules\\[\\d+](\\.limits\\[\\d+])?\\.window$");

  private static final Pattern WHOLE_NUMBER = Pattern.compile("[0-9]+");

  private RulesFile() {}

  /**
   * The rules in the file at {@code path}, in file order.
   *
   * @throws ConfigFileException if the file cannot be read or holds anything but valid rules
   */
  public static List<Rule> load(Path path) {
    return parse(path.toString(), StrictYaml.readText(path));
  }

  /**
   * The rules in {@code yaml}.
   *
   * @param source the name errors give the text, e.g. a file name
   * @throws ConfigFileException if the text holds anything but valid rules
   */
  public static List<Rule> parse(String source, String yaml) {
    YamlLocations locations = YamlLocations.index(source, yaml);
    if (locations.root() == null) {
      throw new ConfigFileException(
          source,
          0,
          0,
          null,
          "is empty; a rules file holds a top-level 'rules:' list ('rules: []' for none)",
          null);
    }
    try {
      return rules(StrictYaml.parse(locations, yaml, File.class));
    } catch (ConfigFileException e) {
      throw explained(e, locations);
    }
  }

  private static List<Rule> rules(StrictYaml.Parsed<File> parsed) {
    List<RuleSpec> specs = parsed.value().rules();
    if (specs == null) {
      if (parsed.locations().key("rules") == null) {
        throw parsed.problem("rules", "is required: the list of rules ('rules: []' for none)");
      }
      return List.of(); // "rules:" with nothing after it
    }
    List<Rule> rules = new ArrayList<>();
    Map<String, Integer> indexOfName = new HashMap<>();
    for (int i = 0; i < specs.size(); i++) {
      String at = "rules[" + i + "]";
      RuleSpec spec = specs.get(i);
      if (spec == null) {
        throw parsed.problem(at, "is empty; a rule is a mapping of name and " + PolicySpec.FIELDS);
      }
      Rule rule;
      try {
        rule = spec.toRule();
      } catch (InvalidPolicyException e) {
        throw parsed.problem(at + "." + e.field(), LimitSpec.problem(e));
      }
      Integer first = indexOfName.putIfAbsent(rule.name(), i);
      if (first != null) {
        YamlLocations.Mark mark = parsed.locations().value("rules[" + first + "].name");
        throw parsed.problem(
            at + ".name",
            "duplicate rule name; '"
                + rule.name()
                + "' is first defined"
                + (mark == null ? "" : " on line " + mark.line())
                + " (rules["
                + first
                + "])");
      }
      rules.add(rule);
    }
    return List.copyOf(rules);
  }

  /**
   * {@code e} with what the rest of the file tells: the rule's name after a problem in one of its
   * fields (the index alone is hard to find in a long file), and, for a window written as a bare
   * number, that it lacks a unit.
   */
  private static ConfigFileException explained(ConfigFileException e, YamlLocations locations) {
    String path = e.path();
    if (path == null) {
      return e;
    }
    String problem = e.problem();
    String number = locations.scalar(path);
    if (WINDOW.matcher(path).matches()
        && locations.found(path).startsWith("the number ")
        && number != null
        && WHOLE_NUMBER.matcher(number).matches()) {
      problem =
          "'"
              + number
              + "' has no unit; write e.g. "
              + number
              + "s, "
              + number
              + "ms or ISO-8601 (PT1M)";
    }
    Matcher rule = IN_RULE.matcher(path);
    if (rule.matches() && !rule.group(2).equals(".name")) {
      String name = locations.scalar("rules[" + rule.group(1) + "].name");
      if (name != null && !name.isEmpty() && name.length() <= 64) {
        problem += " (rule '" + name + "')";
      }
    }
    return problem.equals(e.problem())
        ? e
        : new ConfigFileException(e.source(), e.line(), e.column(), path, problem, e);
  }
}
