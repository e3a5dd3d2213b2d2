package dev.sluice.core.config;

import com.fasterxml.jackson.core.JsonToken;
import dev.sluice.core.Durations;
import dev.sluice.core.InvalidPolicyException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Named settings from three layers, the first that gives a value winning: an environment variable
 * (set and not blank), a flat YAML file of {@code key: value}, the built-in default.
 *
 * <pre>
 * LayeredSettings source = LayeredSettings.load(List.of(Setting.values()), file, System.getenv());
 * int restPort = (int) source.wholeNumber(Setting.REST_PORT, 0, 65_535);
 * </pre>
 *
 * <h2>Why values stay text until read</h2>
 *
 * The environment is text, so the file is read as written too ({@code restPort: 0123} is the text
 * {@code 0123}, as {@code SLUICE_REST_PORT=0123} is) and both go through the same typed readers
 * below: a value means the same and is refused with the same words wherever it was given. The file
 * is read strictly ({@link StrictYaml}: not YAML, a key given twice, a second document and an
 * unknown key are refused at load); a value is checked when it is read, so a setting that is only
 * read with another one (a link's timeout, say) is only checked with it.
 *
 * <h2>Errors</h2>
 *
 * Every problem is a {@link ConfigFileException} that names where the value came from, then the
 * setting, then what is accepted:
 *
 * <pre>
 * node.yaml:3:11: restPort: must be a whole number, was 'http'
 * environment variable SLUICE_REST_PORT: restPort: must be a whole number, was 'http'
 * default: portOffset: moves the default restPort 8080 to 68080, beyond 65535
 * </pre>
 */
public final class LayeredSettings {
  /** One setting: its YAML key, its environment variable and its default. */
  public interface Key {
    /** The YAML key, e.g. {@code restPort}. */
    String key();

    /** The environment variable, e.g. {@code SLUICE_REST_PORT}. */
    String environmentVariable();

    /** The default as text, read like a value given; empty: none. */
    String defaultValue();
  }

  /**
   * A value the file or the environment gave.
   *
   * @param written the value as written
   * @param file the file's index, for errors and relative paths; null for the environment
   * @param baseDirectory the file's directory, against which relative paths resolve
   */
  private record Given(
      WrittenValue written, @Nullable YamlLocations file, @Nullable Path baseDirectory) {}

  /** A settings file as written, by key. */
  private static final class FileValues extends LinkedHashMap<String, WrittenValue> {
    private static final long serialVersionUID = 1L;
  }

  private final Map<Key, Given> given;

  private LayeredSettings(Map<Key, Given> given) {
    this.given = given;
  }

  /**
   * Reads {@code file} (if any) and then {@code environment} over it.
   *
   * @param keys every setting; the file may hold no other key
   * @param file a YAML mapping of settings; empty: every setting from the environment or default
   * @throws ConfigFileException if the file cannot be read, is not a YAML mapping, holds a key that
   *     is no setting, or a list item that is not a plain value
   */
  public static LayeredSettings load(
      List<? extends Key> keys, @Nullable Path file, Map<String, String> environment) {
    Map<Key, Given> given = new HashMap<>();
    if (file != null) {
      readFile(keys, file, given);
    }
    for (Key key : keys) {
      String value = environment.get(key.environmentVariable());
      if (value != null && !value.isBlank()) {
        given.put(key, new Given(new WrittenValue(value.trim(), null, null), null, null));
      }
    }
    return new LayeredSettings(given);
  }

  private static void readFile(List<? extends Key> keys, Path file, Map<Key, Given> given) {
    String text = StrictYaml.readText(file);
    YamlLocations locations = YamlLocations.index(file.toString(), text);
    if (locations.root() == null) {
      return;
    }
    if (locations.root() != JsonToken.START_OBJECT) {
      throw locations.problem(
          "", "expected a mapping of settings (key: value), found " + locations.found(""));
    }
    Path base = file.toAbsolutePath().getParent();
    List<String> names = keys.stream().map(Key::key).toList();
    FileValues values = StrictYaml.parse(locations, text, FileValues.class).value();
    for (Map.Entry<String, WrittenValue> entry : values.entrySet()) {
      String name = entry.getKey();
      int index = names.indexOf(name);
      if (index < 0) {
        throw locations.keyProblem(
            name,
            "unknown setting; the settings are: "
                + String.join(", ", names)
                + StrictYaml.suggestion(name, names));
      }
      List<@Nullable String> items = entry.getValue().items();
      for (int i = 0; items != null && i < items.size(); i++) {
        if (items.get(i) == null) {
          throw locations.problem(YamlLocations.item(name, i), "list items must be plain values");
        }
      }
      given.put(keys.get(index), new Given(entry.getValue(), locations, base));
    }
  }

  /** Whether the file or the environment gives {@code key} (else it is its default). */
  public boolean isSet(Key key) {
    return given.containsKey(key);
  }

  /** The value as text, trimmed: a single value, not a list or mapping. */
  public String text(Key key) {
    Given value = given.get(key);
    if (value == null) {
      return key.defaultValue();
    }
    WrittenValue written = value.written();
    if (written.entries() != null) {
      throw problem(key, "must be a plain value, not a mapping");
    }
    if (written.text() == null) {
      throw problem(key, "must be a single value, not a list");
    }
    return written.text().trim();
  }

  /** The value as text, or null when it is empty or not given. */
  public @Nullable String optional(Key key) {
    if (!isSet(key)) {
      return null;
    }
    String text = text(key);
    return text.isEmpty() ? null : text;
  }

  public long wholeNumber(Key key) {
    String text = text(key);
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw problem(key, "must be a whole number, was '" + text + "'");
    }
  }

  /** {@link #wholeNumber(Key)}, refused outside {@code [min, max]}. */
  public long wholeNumber(Key key, long min, long max) {
    long value = wholeNumber(key);
    if (value < min || value > max) {
      throw problem(key, "must be between " + min + " and " + max + ", was " + value);
    }
    return value;
  }

  public boolean bool(Key key) {
    return switch (text(key).toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw problem(key, "must be true or false, was '" + text(key) + "'");
    };
  }

  /** A duration ({@code 250ms}, {@code PT1M}, see {@link Durations}) in {@code [min, max]}. */
  public Duration duration(Key key, Duration min, Duration max) {
    String text = text(key);
    Duration value;
    try {
      value = Durations.parse(key.key(), text);
    } catch (InvalidPolicyException e) {
      throw problem(key, e.getMessage().substring(key.key().length() + 2));
    }
    if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
      throw problem(
          key,
          "must be between "
              + Durations.format(min)
              + " and "
              + Durations.format(max)
              + ", was "
              + Durations.format(value));
    }
    return value;
  }

  /** One of {@code options}, by its {@code name}, ignoring case. */
  public <T> T choice(Key key, List<T> options, Function<T, String> name) {
    return choice(key, null, text(key), options, name);
  }

  private <T> T choice(
      Key key, @Nullable String entry, String text, List<T> options, Function<T, String> name) {
    for (T option : options) {
      if (name.apply(option).equalsIgnoreCase(text.trim())) {
        return option;
      }
    }
    throw problem(key, entry, mustBeOneOf(options, name) + ", was '" + text.trim() + "'");
  }

  private static <T> String mustBeOneOf(List<T> options, Function<T, String> name) {
    List<String> names = options.stream().map(name).toList();
    return names.size() == 2
        ? "must be " + names.get(0) + " or " + names.get(1)
        : "must be one of " + String.join(", ", names);
  }

  /**
   * A list: a YAML list in the file, or comma-separated text; items trimmed, empty ones skipped.
   */
  public List<String> items(Key key) {
    Given value = given.get(key);
    List<@Nullable String> items =
        value != null && value.written().items() != null
            ? value.written().items()
            : Arrays.asList(text(key).split(","));
    List<String> trimmed = new ArrayList<>();
    for (String item : items) {
      if (item != null && !item.isBlank()) {
        trimmed.add(item.trim());
      }
    }
    return List.copyOf(trimmed);
  }

  /**
   * A mapping of names to one of {@code options}: a YAML mapping in the file ({@code {login:
   * fail-closed}}), or {@code name=value} pairs, comma-separated, in the environment (or as one
   * string in the file). The names are for the caller to check.
   *
   * @param form the pairs' form for errors, e.g. {@code rule=policy}
   * @param example a valid value as pairs, e.g. {@code login=fail-closed,sms=fail-closed}
   */
  public <T> Map<String, T> entries(
      Key key, String form, String example, List<T> options, Function<T, String> name) {
    Given value = given.get(key);
    Map<String, @Nullable String> entries;
    if (value != null && value.written().entries() != null) {
      entries = value.written().entries();
    } else if (value != null && value.written().items() != null) {
      throw problem(
          key,
          "must be a mapping of "
              + form.replace("=", ": ")
              + ", e.g. {"
              + example.split(",")[0].replace("=", ": ")
              + "}");
    } else {
      entries = new LinkedHashMap<>();
      for (String pair : items(key)) {
        int eq = pair.indexOf('=');
        if (eq < 0) {
          throw problem(key, "'" + pair + "' is not " + form + " (e.g. " + example + ")");
        }
        String entry = pair.substring(0, eq).trim();
        if (entries.put(entry, pair.substring(eq + 1).trim()) != null) {
          throw problem(key, entry, "appears twice");
        }
      }
    }
    Map<String, T> chosen = new LinkedHashMap<>();
    entries.forEach(
        (entry, text) -> {
          if (text == null) {
            throw problem(key, entry, mustBeOneOf(options, name) + ", not a list or mapping");
          }
          chosen.put(entry, choice(key, entry, text, options, name));
        });
    return chosen;
  }

  /** A path; a relative one given in the file is relative to the file. Null when empty. */
  public @Nullable Path path(Key key) {
    String text = optional(key);
    if (text == null) {
      return null;
    }
    Path path = Path.of(text);
    Path base = given.get(key).baseDirectory();
    return (path.isAbsolute() || base == null ? path : base.resolve(path)).normalize();
  }

  /** A problem with {@code key}'s value, named by where it came from. */
  public ConfigFileException problem(Key key, String problem) {
    return problem(key, null, problem);
  }

  /** A problem with {@code key}'s value or, if not null, with its mapping's {@code entry}. */
  public ConfigFileException problem(Key key, @Nullable String entry, String problem) {
    Given value = given.get(key);
    if (value != null && value.file() != null) {
      return value.file().problem(entry == null ? key.key() : key.key() + "." + entry, problem);
    }
    String source = value == null ? "default" : "environment variable " + key.environmentVariable();
    return new ConfigFileException(
        source, 0, 0, key.key(), entry == null ? problem : entry + ": " + problem, null);
  }
}
