package dev.sendlog.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RetryBackoffTest {

    @Test
    void doublesFrom100MsAndStopsAt5Seconds() {
        assertThat(RetryBackoff.delayMs(1)).isEqualTo(100);
        assertThat(RetryBackoff.delayMs(2)).isEqualTo(200);
        assertThat(RetryBackoff.delayMs(6)).isEqualTo(3_200);
        assertThat(RetryBackoff.delayMs(7)).isEqualTo(5_000);
        assertThat(RetryBackoff.delayMs(100)).isEqualTo(5_000);
    }
}
