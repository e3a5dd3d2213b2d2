package dev.sluice.rest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.DatabindException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.sluice.core.config.StrictBinding;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Strict JSON for the API: the body must be exactly one object of the expected shape. Unknown
 * fields, duplicate fields, trailing garbage, strings where numbers belong (and the reverse),
 * fractions where whole numbers belong and numbers beyond 64 bits are all errors, and every error
 * becomes an {@link ApiError} whose message names the field ({@code checks[3].limit}) and says what
 * was expected, without Java class names or stack traces.
 */
final class Json {
  private static final ObjectMapper MAPPER =
      StrictBinding.apply(JsonMapper.builder())
          .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
          .build();

  /**
   * One reader per request type: {@code MAPPER.readValue(body, type)} resolves the type on every
   * call, which showed in the REST path's profile.
   */
  private static final ClassValue<ObjectReader> READERS =
      new ClassValue<>() {
        @Override
        protected ObjectReader computeValue(Class<?> type) {
          return MAPPER.readerFor(type);
        }
      };

  private Json() {}

  /**
   * Reads {@code body} as one {@code type}, or throws an {@link ApiError} that a human can act on.
   */
  static <T> T read(byte[] body, Class<T> type) {
    if (body.length == 0) {
      throw new ApiError(
          400, ApiError.MALFORMED_JSON, "the request body is empty; send a JSON object");
    }
    try {
      T value = READERS.get(type).readValue(body);
      if (value == null) {
        throw new ApiError(
            400, ApiError.MALFORMED_JSON, "the request body is null; send a JSON object");
      }
      return value;
    } catch (UnrecognizedPropertyException e) {
      String known =
          new TreeSet<>(
                  e.getKnownPropertyIds().stream()
                      .map(String::valueOf)
                      .collect(Collectors.toList()))
              .stream().collect(Collectors.joining(", "));
      throw new ApiError(
          400,
          ApiError.UNKNOWN_FIELD,
          "unknown field '" + path(e.getPath()) + "'; the fields here are: " + known);
    } catch (MismatchedInputException e) {
      String path = path(e.getPath());
      String original = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
      if (original.startsWith("Trailing token")) {
        throw new ApiError(
            400,
            ApiError.MALFORMED_JSON,
            "the request body is not valid JSON"
                + where(e)
                + ": there is more after the first JSON value");
      }
      if (path.isEmpty()) {
        throw new ApiError(
            400,
            ApiError.MALFORMED_JSON,
            "the request body must be a JSON object, was " + describeToken(e));
      }
      throw ApiError.invalidField(path, "must be " + describe(e.getTargetType()));
    } catch (JsonMappingException e) {
      String path = path(e.getPath());
      if (e.getCause() instanceof ApiError apiError) {
        throw apiError;
      }
      if (e.getCause() instanceof InputCoercionException) {
        throw ApiError.invalidField(path, "is out of range; must be a whole number within 64 bits");
      }
      throw ApiError.invalidField(path.isEmpty() ? "body" : path, e.getOriginalMessage());
    } catch (InputCoercionException e) {
      // A number that does not fit the field's type (beyond 64 bits, or a fraction where the
      // parser cannot even represent it): name the field the parser was on.
      String field = currentField(e);
      throw ApiError.invalidField(field, "is out of range for a whole number");
    } catch (StreamConstraintsException e) {
      throw new ApiError(
          400, ApiError.MALFORMED_JSON, "the request body is too deeply nested or too long");
    } catch (StreamReadException e) {
      throw new ApiError(
          400,
          ApiError.MALFORMED_JSON,
          "the request body is not valid JSON"
              + where(e)
              + ": "
              + withoutSource(e.getOriginalMessage()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Jackson names locations inside its message as {@code [Source: REDACTED (`...` disabled); line:
   * 1, column: 1]}, a setting's name a caller cannot act on; this keeps the line and column, and
   * drops advice to enable parser features.
   */
  static String withoutSource(@Nullable String message) {
    if (message == null) {
      return "";
    }
    String located = SOURCE.matcher(message).replaceAll("line $1, column $2");
    return PARSER_FEATURE.matcher(located).replaceAll("");
  }

  private static final Pattern SOURCE =
      Pattern.compile("\\[Source: [^\\]]*?; line: (\\d+), column: (\\d+)]");

  /** Advice to enable a parser feature: the server's setting, not something the caller can do. */
  private static final Pattern PARSER_FEATURE =
      Pattern.compile(
          ": enable `[A-Za-z_.]+` to allow"
              + "| \\(not recognized as one since Feature '[A-Z_]+' not enabled for parser\\)");

  private static String where(JsonProcessingException e) {
    return e.getLocation() == null
        ? ""
        : " (line "
            + e.getLocation().getLineNr()
            + ", column "
            + e.getLocation().getColumnNr()
            + ")";
  }

  /** Writes {@code value} as JSON bytes. */
  static byte[] write(Object value) {
    try {
      return MAPPER.writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write " + value.getClass().getSimpleName(), e);
    }
  }

  /** {@code checks[3].limit} from Jackson's reference chain. */
  static String path(List<JsonMappingException.Reference> references) {
    StringBuilder path = new StringBuilder();
    for (JsonMappingException.Reference reference : references) {
      if (reference.getFieldName() != null) {
        if (path.length() > 0) {
          path.append('.');
        }
        path.append(reference.getFieldName());
      } else if (reference.getIndex() >= 0) {
        path.append('[').append(reference.getIndex()).append(']');
      }
    }
    return path.toString();
  }

  private static String currentField(InputCoercionException e) {
    try {
      String name = e.getProcessor() == null ? null : e.getProcessor().currentName();
      if (name != null) {
        return name;
      }
    } catch (IOException | RuntimeException ignored) {
      // fall through: the message still says what is wrong
    }
    return "a number";
  }

  private static String describeToken(DatabindException e) {
    String message = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
    if (message.contains("START_ARRAY")) {
      return "an array";
    }
    if (message.contains("VALUE_STRING")) {
      return "a string";
    }
    if (message.contains("VALUE_NUMBER")) {
      return "a number";
    }
    if (message.contains("VALUE_TRUE") || message.contains("VALUE_FALSE")) {
      return "a boolean";
    }
    return "something else";
  }

  /** What a Java type looks like to someone writing JSON. */
  private static String describe(Class<?> type) {
    if (type == null) {
      return "of another type";
    }
    if (type == String.class) {
      return "a string";
    }
    if (type == Long.class
        || type == long.class
        || type == Integer.class
        || type == int.class
        || type == Short.class
        || type == short.class) {
      return "a whole number";
    }
    if (type == Boolean.class || type == boolean.class) {
      return "true or false";
    }
    if (List.class.isAssignableFrom(type) || type.isArray()) {
      return "an array";
    }
    return "an object";
  }
}
