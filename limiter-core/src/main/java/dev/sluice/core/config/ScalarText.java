package dev.sluice.core.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import java.io.IOException;

/**
 * For a string field that takes any single YAML value as the text written: {@code value: 200},
 * {@code value: 1.10} and {@code value: true} read as {@code "200"}, {@code "1.10"} and {@code
 * "true"}, exactly as typed (not as the number or boolean YAML would make of them, so {@code 1.10}
 * keeps its zero). A list or a mapping is still an error. Use it where the file names things that
 * are often numeric, like a descriptor value or a status code:
 *
 * <pre>{@code
 * record Descriptor(@JsonDeserialize(using = ScalarText.class) String value) {}
 * }</pre>
 */
public final class ScalarText extends StdDeserializer<String> {
  private static final long serialVersionUID = 1L;

  public ScalarText() {
    super(String.class);
  }

  @Override
  public String deserialize(JsonParser parser, DeserializationContext context) throws IOException {
    JsonToken token = parser.currentToken();
    if (token != null && token.isScalarValue() && token != JsonToken.VALUE_EMBEDDED_OBJECT) {
      return parser.getText();
    }
    return (String) context.handleUnexpectedToken(String.class, parser);
  }
}
