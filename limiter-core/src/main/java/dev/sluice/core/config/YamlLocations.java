package dev.sluice.core.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Where everything in one YAML text is: the line and column of every key and value, by path ({@code
 * descriptors[1].rate_limit.unit}), and what each value looks like to the person who wrote it ("the
 * text 'minutes'", "a list"). Built by one pass over the text's tokens before it is bound to
 * classes, so that errors found during or after binding can point at the line they come from;
 * binding alone keeps no locations.
 *
 * <p>The same pass refuses what no configuration file should hold: text that is not YAML, a mapping
 * with the same key twice (YAML says keys are unique; a parser that keeps the last one silently
 * drops the first), and a second YAML document after the first.
 */
public final class YamlLocations {
  /** A 1-based line and column. */
  public record Mark(int line, int column) {
    static Mark of(JsonLocation location) {
      return new Mark(location.getLineNr(), location.getColumnNr());
    }
  }

  private static final YAMLFactory YAML = yaml();

  /**
   * A factory for the YAML both passes read (each its own: a mapper's settings change its factory).
   * YAML 1.1 reads a bare yes, no, on or off as a boolean: "leases: off" would then be false, not
   * the text "off", and "shadow: yes" would pass for true. Only true and false are booleans here
   * (as in YAML 1.2); the other words are text, so a string field gets the word as written and a
   * boolean field refuses it, saying which word it found.
   */
  static YAMLFactory yaml() {
    return YAMLFactory.builder()
        .enable(YAMLParser.Feature.PARSE_BOOLEAN_LIKE_WORDS_AS_STRINGS)
        // A key with nothing after it is null, as without a builder (which starts from no
        // parser features rather than the defaults).
        .enable(YAMLParser.Feature.EMPTY_STRING_AS_NULL)
        .build();
  }

  /** The mark the YAML parser puts after each statement of its message. */
  private static final Pattern YAML_MARK =
      Pattern.compile("^ in '[^']*', line (\\d+), column (\\d+):$", Pattern.MULTILINE);

  private final String source;
  private final Map<String, Mark> values = new HashMap<>();
  private final Map<String, Mark> keys = new HashMap<>();
  private final Map<String, String> found = new HashMap<>();
  private final Map<String, String> scalars = new HashMap<>();
  private final Map<Mark, String> pathAt = new HashMap<>();
  private @Nullable JsonToken root;

  private YamlLocations(String source) {
    this.source = source;
  }

  /**
   * Indexes {@code text}.
   *
   * @param source what errors call the text: a file name
   * @throws ConfigFileException if the text is not YAML, has a duplicate key or a second document
   */
  public static YamlLocations index(String source, String text) {
    YamlLocations index = new YamlLocations(source);
    try (JsonParser parser = YAML.createParser(text)) {
      index.read(parser);
    } catch (JsonProcessingException e) {
      throw notYaml(source, e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return index;
  }

  /** The source name errors give, e.g. the file. */
  public String source() {
    return source;
  }

  /** The first token of the document: START_OBJECT for a mapping; null for an empty text. */
  public @Nullable JsonToken root() {
    return root;
  }

  /** Where the value at {@code path} starts, or null if the text has no such path. */
  public @Nullable Mark value(String path) {
    return values.get(path);
  }

  /** Where the key of the mapping entry at {@code path} is, or null. */
  public @Nullable Mark key(String path) {
    return keys.get(path);
  }

  /** The path of the value that starts at {@code mark}, or null. */
  public @Nullable String pathAt(Mark mark) {
    return pathAt.get(mark);
  }

  /**
   * What the value at {@code path} looks like, for messages: {@code the text 'abc'}, {@code the
   * number 5}, {@code true}, {@code a list}, {@code a mapping}, {@code no value}.
   */
  public String found(String path) {
    String description = found.get(path);
    return description == null ? "nothing" : description;
  }

  /**
   * The scalar at {@code path} exactly as written ({@code 1.10}, {@code 0123}, {@code yes}), or
   * null if the text has no scalar there (nothing, a list or a mapping). For messages that quote
   * another field of the file, such as the name of the rule an error is in.
   */
  public @Nullable String scalar(String path) {
    return scalars.get(path);
  }

  /**
   * A problem with the value at {@code path}, located at that value (or, if the text lacks it, at
   * its closest ancestor that it has: a missing field is reported where its mapping starts).
   */
  public ConfigFileException problem(String path, String problem) {
    for (String at = path; ; at = parent(at)) {
      Mark mark = values.containsKey(at) ? values.get(at) : keys.get(at);
      if (mark != null) {
        return new ConfigFileException(source, mark.line(), mark.column(), path, problem, null);
      }
      if (at.isEmpty()) {
        return new ConfigFileException(source, 0, 0, path, problem, null);
      }
    }
  }

  /** A problem with the key at {@code path} (an unknown field, say), located at the key. */
  public ConfigFileException keyProblem(String path, String problem) {
    Mark mark = keys.get(path);
    return mark == null
        ? problem(path, problem)
        : new ConfigFileException(source, mark.line(), mark.column(), path, problem, null);
  }

  /** {@code a.b[2]} → {@code a.b}; {@code a.b} → {@code a}; {@code a} → the root, {@code ""}. */
  static String parent(String path) {
    int cut = Math.max(path.lastIndexOf('.'), path.lastIndexOf('['));
    return cut < 0 ? "" : path.substring(0, cut);
  }

  static String child(String parent, String field) {
    return parent.isEmpty() ? field : parent + "." + field;
  }

  static String item(String parent, int index) {
    return parent + "[" + index + "]";
  }

  /** One frame per open mapping or list: its path, and its keys or next index. */
  private static final class Frame {
    final String path;
    final boolean mapping;
    final Map<String, Integer> keyLines = new HashMap<>();
    int nextIndex;

    Frame(String path, boolean mapping) {
      this.path = path;
      this.mapping = mapping;
    }
  }

  private void read(JsonParser parser) throws IOException {
    root = parser.nextToken();
    if (root == null) {
      return;
    }
    Deque<Frame> open = new ArrayDeque<>();
    JsonToken token = root;
    String pending = "";
    while (true) {
      if (token == JsonToken.FIELD_NAME) {
        Frame frame = open.peek();
        String name = parser.currentName();
        Mark mark = Mark.of(parser.currentTokenLocation());
        String path = child(frame.path, name);
        Integer firstLine = frame.keyLines.putIfAbsent(name, mark.line());
        if (firstLine != null) {
          throw new ConfigFileException(
              source,
              mark.line(),
              mark.column(),
              path,
              "appears twice in this mapping (first on line " + firstLine + ")",
              null);
        }
        keys.put(path, mark);
        pending = path;
      } else if (token == JsonToken.END_OBJECT || token == JsonToken.END_ARRAY) {
        open.pop();
        if (open.isEmpty()) {
          break;
        }
      } else {
        Frame frame = open.peek();
        String path =
            frame == null ? "" : frame.mapping ? pending : item(frame.path, frame.nextIndex++);
        Mark mark = Mark.of(parser.currentTokenLocation());
        values.put(path, mark);
        pathAt.putIfAbsent(mark, path);
        found.put(path, describe(token, parser.getText()));
        if (token.isScalarValue() && token != JsonToken.VALUE_NULL) {
          scalars.put(path, parser.getText());
        }
        if (token == JsonToken.START_OBJECT) {
          open.push(new Frame(path, true));
        } else if (token == JsonToken.START_ARRAY) {
          open.push(new Frame(path, false));
        } else if (open.isEmpty()) {
          break; // the document is one scalar
        }
      }
      token = parser.nextToken();
    }
    if (parser.nextToken() != null) {
      Mark mark = Mark.of(parser.currentTokenLocation());
      throw new ConfigFileException(
          source,
          mark.line(),
          mark.column(),
          null,
          "a configuration file holds one YAML document; found a second one (remove the '---'"
              + " line and what follows, or move it to a file of its own)",
          null);
    }
  }

  private static String describe(JsonToken token, @Nullable String text) {
    return switch (token) {
      case START_OBJECT -> "a mapping";
      case START_ARRAY -> "a list";
      case VALUE_STRING -> text == null || text.isEmpty() ? "no value" : "the text '" + text + "'";
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "the number " + text;
      case VALUE_TRUE -> "true";
      case VALUE_FALSE -> "false";
      default -> "no value";
    };
  }

  /**
   * Text the YAML parser refuses. Its message states what it was parsing and what it found, each
   * followed by a mark ({@code in 'reader', line 5, column 4:}) and a copy of the line with a
   * caret; the error is placed at the last mark (where the problem is) and the statements are kept
   * on one line.
   */
  private static ConfigFileException notYaml(String source, JsonProcessingException e) {
    String message = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
    int line = e.getLocation() == null ? 0 : e.getLocation().getLineNr();
    int column = e.getLocation() == null ? 0 : e.getLocation().getColumnNr();
    StringBuilder statements = new StringBuilder();
    for (String part : message.split("\n")) {
      Matcher mark = YAML_MARK.matcher(part);
      if (mark.matches()) {
        line = Integer.parseInt(mark.group(1));
        column = Integer.parseInt(mark.group(2));
        statements.append(" (line ").append(line).append(", column ").append(column).append(')');
      } else if (!part.isBlank() && !part.startsWith("    ")) {
        statements.append(statements.isEmpty() ? "" : ", ").append(part.strip());
      }
    }
    return new ConfigFileException(
        source, line, column, null, "not valid YAML: " + statements.toString().strip(), e);
  }
}
