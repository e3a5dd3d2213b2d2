package dev.sluice.core.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One value of a flat settings file exactly as written: a scalar's text ({@code 0123}, {@code 1.10}
 * and {@code yes} stay what they are, where a YAML number or boolean would not), a list's items, or
 * a mapping's entries. {@link LayeredSettings} converts it with the same code as an environment
 * variable, which is text. An item or entry that is itself a list or mapping is null, for the
 * reader to refuse by name.
 *
 * @param text the scalar, or null for a list or mapping
 * @param items the items of a list, or null
 * @param entries the entries of a mapping, or null
 */
@JsonDeserialize(using = WrittenValue.Reader.class)
record WrittenValue(
    @Nullable String text,
    @Nullable List<@Nullable String> items,
    @Nullable Map<String, @Nullable String> entries) {

  /** Reads a {@link WrittenValue}: never fails, so that the caller says what is wrong. */
  static final class Reader extends StdDeserializer<WrittenValue> {
    private static final long serialVersionUID = 1L;

    Reader() {
      super(WrittenValue.class);
    }

    @Override
    public WrittenValue deserialize(JsonParser parser, DeserializationContext context)
        throws IOException {
      JsonToken token = parser.currentToken();
      if (token == JsonToken.START_ARRAY) {
        List<@Nullable String> items = new ArrayList<>();
        while ((token = parser.nextToken()) != JsonToken.END_ARRAY) {
          items.add(plain(parser, token, false));
        }
        return new WrittenValue(null, items, null);
      }
      if (token == JsonToken.START_OBJECT) {
        Map<String, @Nullable String> entries = new LinkedHashMap<>();
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
          String key = parser.currentName();
          token = parser.nextToken();
          entries.put(key, plain(parser, token, true));
        }
        return new WrittenValue(null, null, entries);
      }
      return new WrittenValue(parser.getText(), null, null);
    }

    /**
     * A scalar's text, or null for a list or mapping. A YAML null reads as written ({@code ~}, so
     * that {@code members: [~]} is refused as no host:port), or as empty text if {@code
     * nullIsEmpty} ({@code login:} with nothing after it).
     */
    private static @Nullable String plain(JsonParser parser, JsonToken token, boolean nullIsEmpty)
        throws IOException {
      if (token.isStructStart()) {
        parser.skipChildren();
        return null;
      }
      String text = parser.getText();
      return token == JsonToken.VALUE_NULL && (nullIsEmpty || text == null) ? "" : text;
    }

    /** {@code restPort:} with nothing after it: empty text, as in the environment. */
    @Override
    public WrittenValue getNullValue(DeserializationContext context) {
      return new WrittenValue("", null, null);
    }
  }
}
