package dev.sluice.core.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Reads a YAML configuration file into Java records, strictly, and turns every problem into one
 * {@link ConfigFileException} that names the file, line, column and field and says what to write
 * instead.
 *
 * <h2>Why strict</h2>
 *
 * A rate limit that silently means something other than what was written is worse than one that
 * refuses to load. So nothing is guessed: an unknown field is an error (a misspelt {@code
 * ratelimit:} would otherwise drop a limit without a word), so is a key given twice in one mapping,
 * a second YAML document, a quoted number where a number belongs ({@code "5"}), a number or {@code
 * yes} where {@code true}/{@code false} belongs, a fraction where a whole number belongs, a number
 * beyond the field's range, and a list or mapping where a single value belongs. Fields that should
 * take any scalar as its text (a descriptor value such as {@code 200}) say so with {@link
 * ScalarText}.
 *
 * <h2>How</h2>
 *
 * Two passes over the text. The first ({@link YamlLocations#index}) walks the YAML tokens: it
 * refuses text that is not YAML, duplicate keys and second documents, and notes where every key and
 * value is. The second binds the text to the target type with Jackson, configured to coerce
 * nothing; Jackson's error names the field path, and the first pass's index turns that path into a
 * line and column and says what was found there. The caller's own checks after binding (a value out
 * of the format's range, two entries with the same name) use the same index through {@link
 * Parsed#problem}, so every error of a file reads alike:
 *
 * <pre>
 * envoy.yaml:9:15: descriptors[1].rate_limit.unit: invalid unit 'minutes'; ...
 * envoy.yaml:4:5: descriptors[0].ratelimit: unknown field; the fields here are: ...
 * </pre>
 *
 * <h2>Binding</h2>
 *
 * Targets are records (or Jackson-bindable classes) whose components carry the file's names with
 * {@code @JsonProperty}. A field the file leaves out is null (or false, 0 for primitives): say in
 * the caller's checks which fields are required. {@code key:} with nothing after it is null too.
 */
public final class StrictYaml {
  private static final ObjectMapper MAPPER =
      StrictBinding.apply(YAMLMapper.builder(YamlLocations.yaml())).build();

  /** One reader per target type: resolving a type on every read is wasted work. */
  private static final ClassValue<ObjectReader> READERS =
      new ClassValue<>() {
        @Override
        protected ObjectReader computeValue(Class<?> type) {
          return MAPPER.readerFor(type);
        }
      };

  private StrictYaml() {}

  /**
   * A bound file and where each of its fields was written, for the caller's own checks.
   *
   * @param value the file as the target type
   * @param locations where every key and value of the file is
   */
  public record Parsed<T>(T value, YamlLocations locations) {
    /** A problem with the value at {@code path}, located where the file wrote it. */
    public ConfigFileException problem(String path, String problem) {
      return locations.problem(path, problem);
    }
  }

  /**
   * Reads the UTF-8 file at {@code file} as one {@code type}.
   *
   * @throws ConfigFileException if the file cannot be read or is not exactly a {@code type}
   */
  public static <T> Parsed<T> read(Path file, Class<T> type) {
    return parse(file.toString(), readText(file), type);
  }

  /**
   * The text of the UTF-8 file at {@code file}, for a caller that looks at it before binding (a
   * node config file that is empty means "all defaults", say).
   *
   * @throws ConfigFileException if the file does not exist, cannot be read or is not UTF-8
   */
  public static String readText(Path file) {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .decode(java.nio.ByteBuffer.wrap(Files.readAllBytes(file)))
          .toString();
    } catch (NoSuchFileException e) {
      throw new ConfigFileException(file.toString(), 0, 0, null, "no such file", e);
    } catch (CharacterCodingException e) {
      throw new ConfigFileException(
          file.toString(), 0, 0, null, "is not UTF-8 text; save it as UTF-8", e);
    } catch (IOException e) {
      throw new ConfigFileException(
          file.toString(), 0, 0, null, "cannot be read: " + e.getMessage(), e);
    }
  }

  /**
   * Reads {@code text} as one {@code type}.
   *
   * @param source what errors call the text, e.g. the file it came from
   * @throws ConfigFileException if the text is not exactly a {@code type}
   */
  public static <T> Parsed<T> parse(String source, String text, Class<T> type) {
    return parse(YamlLocations.index(source, text), text, type);
  }

  /**
   * Binds {@code text}, already indexed as {@code locations}, as one {@code type}. For a caller
   * that needs the index whatever happens: to look at the text before binding, or to add to an
   * error what the file says elsewhere (the name of the rule an error is in, say).
   *
   * @param locations {@link YamlLocations#index} of {@code text}
   * @throws ConfigFileException if the text is not exactly a {@code type}
   */
  public static <T> Parsed<T> parse(YamlLocations locations, String text, Class<T> type) {
    String source = locations.source();
    if (locations.root() == null) {
      throw new ConfigFileException(
          source, 0, 0, null, "is empty; expected " + describe(type), null);
    }
    if (locations.root() != JsonToken.START_OBJECT && !isScalarTarget(type)) {
      YamlLocations.Mark mark = locations.value("");
      throw new ConfigFileException(
          source,
          mark == null ? 0 : mark.line(),
          mark == null ? 0 : mark.column(),
          null,
          "expected " + describe(type) + ", found " + locations.found(""),
          null);
    }
    try {
      T value = READERS.get(type).readValue(text);
      if (value == null) {
        throw new ConfigFileException(source, 0, 0, null, "expected " + describe(type), null);
      }
      return new Parsed<>(value, locations);
    } catch (UnrecognizedPropertyException e) {
      String path = path(e);
      throw locations.keyProblem(
          path,
          "unknown field; the fields here are: "
              + known(e.getKnownPropertyIds())
              + suggestion(e.getPropertyName(), e.getKnownPropertyIds()));
    } catch (ValueInstantiationException e) {
      // A record's constructor refused the values: its message is the problem.
      Throwable cause = e.getCause() == null ? e : e.getCause();
      throw withCause(locations.problem(path(e), String.valueOf(cause.getMessage())), cause);
    } catch (MismatchedInputException e) {
      String path = path(e);
      if (locations.value(path) == null && locations.key(path) == null) {
        // Only a primitive field left out gets here: the others are null.
        throw withCause(
            locations.problem(
                path, "is required (" + describe(typeOrObject(e.getTargetType())) + ")"),
            e);
      }
      throw withCause(
          locations.problem(path, mismatch(e.getTargetType(), locations.found(path))), e);
    } catch (JsonMappingException e) {
      String path = path(e);
      if (e.getCause() instanceof InputCoercionException range) {
        throw withCause(locations.problem(path, outOfRange(range, locations.found(path))), e);
      }
      throw withCause(locations.problem(path, String.valueOf(e.getOriginalMessage())), e);
    } catch (InputCoercionException e) {
      // A number beyond the range of its field, met by the parser before any path exists.
      JsonLocation at = e.getLocation();
      String path =
          at == null
              ? null
              : locations.pathAt(new YamlLocations.Mark(at.getLineNr(), at.getColumnNr()));
      String where = path == null ? "" : path;
      throw withCause(locations.problem(where, outOfRange(e, locations.found(where))), e);
    } catch (IOException e) {
      throw new ConfigFileException(source, 0, 0, null, "cannot be read: " + e.getMessage(), e);
    }
  }

  private static ConfigFileException withCause(ConfigFileException e, Throwable cause) {
    return new ConfigFileException(e.source(), e.line(), e.column(), e.path(), e.problem(), cause);
  }

  /** {@code descriptors[1].rate_limit} from Jackson's reference chain. */
  static String path(JsonMappingException e) {
    String path = "";
    for (JsonMappingException.Reference reference : e.getPath()) {
      if (reference.getFieldName() != null) {
        path = YamlLocations.child(path, reference.getFieldName());
      } else if (reference.getIndex() >= 0) {
        path = YamlLocations.item(path, reference.getIndex());
      }
    }
    return path;
  }

  private static String outOfRange(InputCoercionException e, String found) {
    Class<?> target = e.getTargetType();
    String bits = target == Integer.TYPE || target == Integer.class ? "32-bit" : "64-bit";
    return "is out of range: " + found + " does not fit a " + bits + " whole number";
  }

  private static Class<?> typeOrObject(@Nullable Class<?> type) {
    return type == null ? Object.class : type;
  }

  private static final java.util.regex.Pattern NUMBER =
      java.util.regex.Pattern.compile("the text '[-+]?[0-9][0-9_]*(\\.[0-9]*)?'");

  private static final java.util.regex.Pattern BOOLEAN =
      java.util.regex.Pattern.compile(
          "the text '(true|false)'", java.util.regex.Pattern.CASE_INSENSITIVE);

  private static String mismatch(@Nullable Class<?> target, String found) {
    String expected = "must be " + (target == null ? "something else" : describe(target));
    String hint =
        (isNumber(target) && NUMBER.matcher(found).matches())
                || (isBoolean(target) && BOOLEAN.matcher(found).matches())
            ? " (write it without quotes)"
            : "";
    return expected + ", found " + found + hint;
  }

  private static boolean isNumber(@Nullable Class<?> type) {
    return type != null
        && (Number.class.isAssignableFrom(type)
            || type == long.class
            || type == int.class
            || type == short.class
            || type == double.class);
  }

  private static boolean isBoolean(@Nullable Class<?> type) {
    return type == Boolean.class || type == boolean.class;
  }

  private static boolean isScalarTarget(Class<?> type) {
    return type == String.class || isNumber(type) || isBoolean(type);
  }

  /** What a Java type looks like to someone writing YAML. */
  static String describe(Type type) {
    Class<?> raw =
        type instanceof ParameterizedType parameterized
            ? (Class<?>) parameterized.getRawType()
            : type instanceof Class<?> c ? c : Object.class;
    if (raw == String.class) {
      return "a string";
    }
    if (raw == Long.class
        || raw == long.class
        || raw == Integer.class
        || raw == int.class
        || raw == Short.class
        || raw == short.class) {
      return "a whole number";
    }
    if (raw == Double.class || raw == double.class || raw == Float.class || raw == float.class) {
      return "a number";
    }
    if (isBoolean(raw)) {
      return "true or false";
    }
    if (Collection.class.isAssignableFrom(raw) || raw.isArray()) {
      return "a list";
    }
    if (Map.class.isAssignableFrom(raw)) {
      return "a mapping";
    }
    if (raw.isEnum()) {
      return "one of "
          + java.util.Arrays.stream(raw.getEnumConstants())
              .map(String::valueOf)
              .collect(Collectors.joining(", "));
    }
    return "a mapping (key: value)";
  }

  private static String known(@Nullable Collection<Object> ids) {
    if (ids == null || ids.isEmpty()) {
      return "(none)";
    }
    return new TreeSet<>(ids.stream().map(String::valueOf).toList())
        .stream().collect(Collectors.joining(", "));
  }

  /**
   * "did you mean" for the usual slips: another case, a missing or extra separator ({@code
   * ratelimit}, {@code requestsPerUnit}, {@code rate-limit} for {@code rate_limit}). Empty when
   * nothing is close; else {@code "; did you mean 'rate_limit'?"}, to append to a message.
   */
  public static String suggestion(@Nullable String field, @Nullable Collection<?> known) {
    if (field == null || known == null) {
      return "";
    }
    String plain = squash(field);
    List<String> close =
        known.stream().map(String::valueOf).filter(k -> squash(k).equals(plain)).toList();
    return close.isEmpty() ? "" : "; did you mean '" + close.get(0) + "'?";
  }

  private static String squash(String name) {
    return name.replace("_", "").replace("-", "").toLowerCase(java.util.Locale.ROOT);
  }
}
