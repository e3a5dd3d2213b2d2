package dev.sluice.core.rules;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.sluice.core.Algorithm;
import dev.sluice.core.Durations;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Policy;
import dev.sluice.core.Rule;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Reads the rules file of DESIGN §6:
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
 * </pre>
 *
 * <p>The file is read as a stream of YAML tokens rather than bound to classes, so that every error
 * can point at the line and column it comes from. Nothing is lenient: unknown fields, a duplicate
 * field or rule name, a value of the wrong type (a quoted number, a window without a unit) are all
 * errors, because a rate limit that silently means something other than what was written is worse
 * than one that refuses to load. Every error is a {@link RulesFileException} naming the file, the
 * line and column, the rule and the field; value checks are {@link Policy}'s own, so a file accepts
 * exactly what {@code PUT /v1/rules/{name}} accepts.
 */
public final class RulesFile {
  /** The fields a rule may have, in the order the documentation lists them. */
  public static final Set<String> FIELDS =
      Set.of("name", "algorithm", "limit", "window", "burst", "buckets", "shadow", "countDenied");

  private static final String FIELD_LIST =
      "name, algorithm, limit, window, burst, buckets, shadow, countDenied";

  private static final YAMLFactory YAML = YAMLFactory.builder().build();

  private RulesFile() {}

  /**
   * The rules in the file at {@code path}, in file order.
   *
   * @throws RulesFileException if the file cannot be read or holds anything but valid rules
   */
  public static List<Rule> load(Path path) {
    String text;
    try {
      text = Files.readString(path, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new RulesFileException(
          path.toString(), 0, 0, null, null, "cannot read the file: " + e, e);
    }
    return parse(path.toString(), text);
  }

  /**
   * The rules in {@code yaml}.
   *
   * @param source the name errors give the text, e.g. a file name or {@code "PUT /v1/rules"}
   * @throws RulesFileException if the text holds anything but valid rules
   */
  public static List<Rule> parse(String source, String yaml) {
    return parse(source, new StringReader(yaml));
  }

  /**
   * The rules {@code reader} yields. The reader is read to the end but not closed.
   *
   * @param source the name errors give the text, e.g. a file name
   * @throws RulesFileException if the text holds anything but valid rules
   */
  public static List<Rule> parse(String source, Reader reader) {
    try (JsonParser parser = YAML.createParser(reader)) {
      return new Reading(source, parser).file();
    } catch (JsonProcessingException e) {
      JsonLocation location = e.getLocation();
      String original = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
      // The YAML parser's own last mark is where the problem is (Jackson's location can lag).
      Matcher lastMark = lastMark(original);
      throw new RulesFileException(
          source,
          lastMark != null
              ? Integer.parseInt(lastMark.group(1))
              : location == null ? 0 : location.getLineNr(),
          lastMark != null
              ? Integer.parseInt(lastMark.group(2))
              : location == null ? 0 : location.getColumnNr(),
          null,
          null,
          "not valid YAML: " + yamlProblem(original),
          e);
    } catch (IOException e) {
      throw new RulesFileException(source, 0, 0, null, null, "cannot read: " + e, e);
    }
  }

  private static final Pattern YAML_MARK =
      Pattern.compile("^ in '[^']*', line (\\d+), column (\\d+):$", Pattern.MULTILINE);

  private static @Nullable Matcher lastMark(String message) {
    Matcher mark = YAML_MARK.matcher(message);
    int start = -1;
    while (mark.find()) {
      start = mark.start();
    }
    return start >= 0 && mark.find(start) ? mark : null;
  }

  /**
   * The YAML parser's message on one line: it writes what it was parsing and what it found, each
   * followed by a mark ({@code in 'reader', line 5, column 4:}) and a copy of the line with a
   * caret. This keeps both statements and turns the marks into "at line 5, column 4", so that
   * "while parsing a block collection" comes with what was wrong in it.
   */
  public static String yamlProblem(String message) {
    StringBuilder out = new StringBuilder();
    for (String line : message.split("\n")) {
      Matcher mark = YAML_MARK.matcher(line);
      if (mark.matches()) {
        out.append(" at line ").append(mark.group(1)).append(", column ").append(mark.group(2));
      } else if (!line.isBlank() && !line.startsWith("    ")) {
        out.append(out.isEmpty() ? "" : ": ").append(line.strip());
      }
    }
    return out.toString();
  }

  /** A scalar value as written, with where it was written. */
  private record Value(JsonToken token, String text, int line, int column) {}

  /** A problem found before the rule's name is known, reported once it is. */
  private record Problem(JsonLocation location, String field, String text) {}

  /** One pass over one file; holds the parser and the source name for error messages. */
  private static final class Reading {
    private final String source;
    private final JsonParser parser;

    Reading(String source, JsonParser parser) {
      this.source = source;
      this.parser = parser;
    }

    List<Rule> file() throws IOException {
      JsonToken token = parser.nextToken();
      if (token == null) {
        throw new RulesFileException(
            source,
            0,
            0,
            null,
            null,
            "the file is empty; expected a top-level 'rules:' list",
            null);
      }
      if (token != JsonToken.START_OBJECT) {
        throw error(
            null, null, "expected a top-level 'rules:' list, found " + describe(token, text()));
      }
      List<Rule> rules = null;
      while ((token = parser.nextToken()) == JsonToken.FIELD_NAME) {
        String field = parser.currentName();
        if (!"rules".equals(field)) {
          throw error(null, field, "unknown top-level field; the file holds only 'rules:'");
        }
        if (rules != null) {
          throw error(null, field, "'rules:' appears twice");
        }
        token = parser.nextToken();
        if (isEmpty(token, text())) {
          rules = List.of();
        } else if (token == JsonToken.START_ARRAY) {
          rules = rules();
        } else {
          throw error(null, "rules", "must be a list of rules, found " + describe(token, text()));
        }
      }
      if (rules == null) {
        throw error(null, null, "missing the top-level 'rules:' list");
      }
      if (parser.nextToken() != null) {
        throw error(null, null, "a rules file holds one YAML document; found a second one");
      }
      return rules;
    }

    private List<Rule> rules() throws IOException {
      List<Rule> rules = new ArrayList<>();
      Map<String, Integer> lineOfName = new HashMap<>();
      JsonToken token;
      while ((token = parser.nextToken()) != JsonToken.END_ARRAY) {
        int index = rules.size() + 1;
        int ruleLine = parser.currentTokenLocation().getLineNr();
        int ruleColumn = parser.currentTokenLocation().getColumnNr();
        if (token != JsonToken.START_OBJECT) {
          throw error(
              "rule #" + index,
              null,
              "must be a mapping of fields (" + FIELD_LIST + "), found " + describe(token, text()));
        }
        Map<String, Value> values = fields(index);
        String label = label(values.get("name"), index);
        Rule rule = rule(label, values, ruleLine, ruleColumn);
        Integer firstLine = lineOfName.putIfAbsent(rule.name(), values.get("name").line());
        if (firstLine != null) {
          throw error(
              values.get("name"),
              label,
              "name",
              "duplicate rule name; '" + rule.name() + "' is first defined on line " + firstLine);
        }
        rules.add(rule);
      }
      return rules;
    }

    /**
     * The fields of one rule as written. Unknown and duplicate fields fail here, but only after the
     * whole rule is read, so that the error can name the rule even when its name comes last.
     */
    private Map<String, Value> fields(int index) throws IOException {
      Map<String, Value> values = new LinkedHashMap<>();
      Problem firstProblem = null;
      JsonToken token;
      while ((token = parser.nextToken()) == JsonToken.FIELD_NAME) {
        String field = parser.currentName();
        JsonLocation fieldLocation = parser.currentTokenLocation();
        token = parser.nextToken();
        JsonLocation valueLocation = parser.currentTokenLocation();
        Value value =
            new Value(token, text(), valueLocation.getLineNr(), valueLocation.getColumnNr());
        parser.skipChildren();
        if (!FIELDS.contains(field)) {
          if (firstProblem != null) {
            continue;
          }
          firstProblem =
              new Problem(
                  fieldLocation,
                  field,
                  "unknown field; a rule has only " + FIELD_LIST + suggestion(field));
        } else if (values.containsKey(field)) {
          if (firstProblem != null) {
            continue;
          }
          firstProblem =
              new Problem(
                  fieldLocation,
                  field,
                  "appears twice in this rule (first on line " + values.get(field).line() + ")");
        } else {
          values.put(field, value);
        }
      }
      if (firstProblem != null) {
        throw new RulesFileException(
            source,
            firstProblem.location().getLineNr(),
            firstProblem.location().getColumnNr(),
            label(values.get("name"), index),
            firstProblem.field(),
            firstProblem.text(),
            null);
      }
      return values;
    }

    private Rule rule(String label, Map<String, Value> values, int ruleLine, int ruleColumn) {
      for (String required : List.of("name", "limit", "window")) {
        if (!values.containsKey(required)) {
          throw new RulesFileException(
              source, ruleLine, ruleColumn, label, required, "is required", null);
        }
      }
      Policy.Builder policy = Policy.builder();
      String name = string(label, values, "name", true);
      try {
        Rule.checkName(name);
        if (values.containsKey("algorithm")) {
          policy.algorithm(Algorithm.fromWireName(string(label, values, "algorithm", false)));
        }
        policy.limit(wholeNumber(label, values, "limit", Long.MAX_VALUE));
        policy.window(window(label, values));
        if (values.containsKey("burst")) {
          policy.burst(wholeNumber(label, values, "burst", Long.MAX_VALUE));
        }
        if (values.containsKey("buckets")) {
          policy.buckets((int) wholeNumber(label, values, "buckets", Integer.MAX_VALUE));
        }
        if (values.containsKey("shadow")) {
          policy.shadow(bool(label, values, "shadow"));
        }
        if (values.containsKey("countDenied")) {
          policy.countDenied(bool(label, values, "countDenied"));
        }
        return new Rule(name, policy.build());
      } catch (InvalidPolicyException e) {
        Value at = values.get(e.field());
        String problem = e.getMessage().substring(e.field().length() + 2);
        if (at == null) {
          throw new RulesFileException(source, ruleLine, ruleColumn, label, e.field(), problem, e);
        }
        throw new RulesFileException(source, at.line(), at.column(), label, e.field(), problem, e);
      }
    }

    private String string(String label, Map<String, Value> values, String field, boolean orNumber) {
      Value value = values.get(field);
      if (value.token() == JsonToken.VALUE_STRING
          || (orNumber && value.token() == JsonToken.VALUE_NUMBER_INT)) {
        return value.text();
      }
      throw error(value, label, field, "must be a string, found " + describe(value));
    }

    private long wholeNumber(String label, Map<String, Value> values, String field, long max) {
      Value value = values.get(field);
      if (value.token() != JsonToken.VALUE_NUMBER_INT) {
        String hint = value.token() == JsonToken.VALUE_STRING ? " (write it without quotes)" : "";
        throw error(value, label, field, "must be a whole number, found " + describe(value) + hint);
      }
      BigInteger number = new BigInteger(value.text());
      long min = max == Integer.MAX_VALUE ? Integer.MIN_VALUE : Long.MIN_VALUE;
      if (number.compareTo(BigInteger.valueOf(max)) > 0
          || number.compareTo(BigInteger.valueOf(min)) < 0) {
        throw error(value, label, field, value.text() + " is out of range");
      }
      return number.longValue();
    }

    private java.time.Duration window(String label, Map<String, Value> values) {
      Value value = values.get("window");
      if (value.token() == JsonToken.VALUE_NUMBER_INT) {
        throw error(
            value,
            label,
            "window",
            "'"
                + value.text()
                + "' has no unit; write e.g. "
                + value.text()
                + "s, "
                + value.text()
                + "ms or ISO-8601 (PT1M)");
      }
      return Durations.parse("window", string(label, values, "window", false));
    }

    private boolean bool(String label, Map<String, Value> values, String field) {
      Value value = values.get(field);
      if (value.token() == JsonToken.VALUE_TRUE) {
        return true;
      }
      if (value.token() == JsonToken.VALUE_FALSE) {
        return false;
      }
      throw error(value, label, field, "must be true or false, found " + describe(value));
    }

    /** How errors name a rule: by its name when it has a usable one, always by its position. */
    private static String label(@Nullable Value name, int index) {
      if (name != null
          && (name.token() == JsonToken.VALUE_STRING || name.token() == JsonToken.VALUE_NUMBER_INT)
          && !name.text().isEmpty()
          && name.text().length() <= 64) {
        return "rule '" + name.text() + "' (#" + index + ")";
      }
      return "rule #" + index;
    }

    private RulesFileException error(
        Value value, @Nullable String rule, String field, String problem) {
      return new RulesFileException(
          source, value.line(), value.column(), rule, field, problem, null);
    }

    /** An error at the parser's current token. */
    private RulesFileException error(
        @Nullable String rule, @Nullable String field, String problem) {
      JsonLocation location = parser.currentTokenLocation();
      return new RulesFileException(
          source, location.getLineNr(), location.getColumnNr(), rule, field, problem, null);
    }

    /** A YAML key with nothing after it reads as an empty string or null. */
    private static boolean isEmpty(JsonToken token, String text) {
      return token == JsonToken.VALUE_NULL || (token == JsonToken.VALUE_STRING && text.isEmpty());
    }

    private String text() throws IOException {
      String text = parser.getText();
      return text == null ? "" : text;
    }

    private static String describe(Value value) {
      return describe(value.token(), value.text());
    }

    private static String describe(@Nullable JsonToken token, String text) {
      if (token == null) {
        return "the end of the file";
      }
      if (isEmpty(token, text)) {
        return "no value";
      }
      return switch (token) {
        case START_OBJECT -> "a mapping";
        case START_ARRAY -> "a list";
        case VALUE_STRING -> "the text '" + text + "'";
        case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "the number " + text;
        case VALUE_TRUE, VALUE_FALSE -> text;
        case VALUE_NULL -> "no value";
        default -> "'" + text + "'";
      };
    }

    private static String suggestion(String field) {
      for (String known : FIELDS) {
        if (known.equalsIgnoreCase(field)
            || known.equalsIgnoreCase(field.replace("_", "").replace("-", ""))) {
          return "; did you mean '" + known + "'?";
        }
      }
      return "";
    }
  }
}
