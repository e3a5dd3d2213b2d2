package dev.sluice.helm;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;

/** Walks values.yaml alongside values.schema.json, down to the schema's leaves. */
final class ValuesTree {

  interface Visitor {
    /**
     * Called for every documented position: a leaf value, or an object the schema leaves free-form.
     * {@code schemaNode} is null when the schema does not declare the key.
     */
    void visit(String path, JsonNode value, JsonNode schemaNode);
  }

  private ValuesTree() {}

  static void walk(JsonNode value, JsonNode schemaNode, String path, Visitor visitor) {
    JsonNode properties = schemaNode == null ? null : schemaNode.get("properties");
    if (value.isObject() && properties != null) {
      for (Map.Entry<String, JsonNode> field : value.properties()) {
        String childPath = path.isEmpty() ? field.getKey() : path + "." + field.getKey();
        JsonNode childSchema = properties.get(field.getKey());
        if (childSchema == null) {
          visitor.visit(childPath, field.getValue(), null);
        } else {
          walk(field.getValue(), childSchema, childPath, visitor);
        }
      }
    } else {
      visitor.visit(path, value, schemaNode);
    }
  }
}
