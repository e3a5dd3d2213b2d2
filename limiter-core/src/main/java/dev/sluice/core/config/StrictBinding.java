package dev.sluice.core.config;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.cfg.MapperBuilder;
import com.fasterxml.jackson.databind.type.LogicalType;

/**
 * The binding rules every input Sluice reads shares, YAML files ({@link StrictYaml}) and REST
 * bodies alike: nothing is coerced or guessed. An unknown or repeated field, trailing content, a
 * missing primitive, a quoted number, a number or text where a boolean belongs, a fraction where a
 * whole number belongs, an empty string for a number, list or object: each is an error, so a value
 * means in every input exactly what it says, and the files and the API refuse the same things.
 */
public final class StrictBinding {
  private StrictBinding() {}

  /** {@code builder} with the strict rules applied, ready for format-specific settings. */
  public static <M extends ObjectMapper, B extends MapperBuilder<M, B>> B apply(B builder) {
    return builder
        .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
        .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS)
        .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
        .disable(DeserializationFeature.ACCEPT_SINGLE_VALUE_AS_ARRAY)
        .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
        .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
        .withCoercionConfig(
            LogicalType.Textual,
            config ->
                config
                    .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail))
        .withCoercionConfig(
            LogicalType.Integer,
            config ->
                config
                    .setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail))
        .withCoercionConfig(
            LogicalType.Float,
            config ->
                config
                    .setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail))
        .withCoercionConfig(
            LogicalType.Boolean,
            config ->
                config
                    .setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail))
        .withCoercionConfig(
            LogicalType.Collection,
            config -> config.setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail))
        .withCoercionConfig(
            LogicalType.POJO,
            config -> config.setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail));
  }
}
