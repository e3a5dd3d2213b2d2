package dev.sluice.node.resp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * REST's answer bodies ({@code DecisionBody}, {@code RuleSpec}) as RESP replies: the same fields
 * under the same names, so that a {@code SLUICE.*} answer reads as the REST one does. An object is
 * a map (RESP3; in RESP2 a flat array of field and value, as {@code HGETALL} answers), an array an
 * array, a string a bulk string, a whole number an integer, a null a null, and a boolean the
 * integer 1 or 0 in either protocol, as Redis's own commands answer yes or no ({@code EXISTS}): a
 * RESP3 boolean breaks clients' generic reply readers (Lettuce's {@code ArrayOutput} refuses one).
 */
final class JsonReplies {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private JsonReplies() {}

  /** {@code body} as REST writes it, as a reply. */
  static Reply of(Object body) {
    return reply(MAPPER.valueToTree(body));
  }

  static Reply reply(JsonNode node) {
    if (node == null || node.isNull() || node.isMissingNode()) {
      return Reply.NULL;
    }
    if (node.isObject()) {
      List<Reply> fields = new ArrayList<>();
      for (Map.Entry<String, JsonNode> entry : node.properties()) {
        fields.add(Reply.bulk(entry.getKey()));
        fields.add(reply(entry.getValue()));
      }
      return Reply.map(fields);
    }
    if (node.isArray()) {
      List<Reply> items = new ArrayList<>(node.size());
      node.forEach(item -> items.add(reply(item)));
      return Reply.array(items);
    }
    if (node.isBoolean()) {
      return Reply.integer(node.booleanValue() ? 1 : 0);
    }
    if (node.isIntegralNumber() && node.canConvertToLong()) {
      return Reply.integer(node.longValue());
    }
    if (node.isNumber()) {
      return new Reply.Double(node.doubleValue());
    }
    return Reply.bulk(node.asText());
  }
}
