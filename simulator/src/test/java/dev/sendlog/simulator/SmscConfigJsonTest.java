package dev.sendlog.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonMappingException;
import dev.sendlog.simulator.smpp.SmscConfig;
import dev.sendlog.simulator.smpp.SmscIdFormat;
import dev.sendlog.simulator.smpp.SmscReceipts;
import org.junit.jupiter.api.Test;

/** The {@code --smpp-config} file of SimulatorMain, read with the module's mapper. */
class SmscConfigJsonTest {
    @Test
    void absentFieldsKeepTheirDefaults() throws Exception {
        SmscConfig config = Json.MAPPER.readValue(
                "{\"latencyMs\": 5, \"receipts\": \"NONE\", \"idFormat\": \"DECIMAL\", \"loseResponseRate\": 0.5}",
                SmscConfig.class);

        assertThat(config)
                .isEqualTo(SmscConfig.defaults().toBuilder()
                        .latencyMs(5)
                        .receipts(SmscReceipts.NONE)
                        .idFormat(SmscIdFormat.DECIMAL)
                        .loseResponseRate(0.5)
                        .build());
        assertThat(config.systemId()).isEqualTo("sendlog");
        assertThat(config.receiptDelayMs()).isEqualTo(50);
        assertThat(config.enquireLinkResponse()).isTrue();
    }

    @Test
    void unknownFieldsAndBadValuesFail() {
        assertThatThrownBy(() -> Json.MAPPER.readValue("{\"latencyMS\": 5}", SmscConfig.class))
                .isInstanceOf(JsonMappingException.class);
        assertThatThrownBy(() -> Json.MAPPER.readValue("{\"loseResponseRate\": 2}", SmscConfig.class))
                .hasMessageContaining("loseResponseRate");
    }
}
