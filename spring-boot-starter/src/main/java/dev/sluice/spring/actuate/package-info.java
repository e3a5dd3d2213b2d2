/** The Actuator endpoint {@code sluice} and the health indicator. */
@NullMarked
package dev.sluice.spring.actuate;

import org.jspecify.annotations.NullMarked;
