package dev.sendlog.simulator.smpp;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.jsmpp.SMPPConstant;
import org.jsmpp.bean.AlertNotification;
import org.jsmpp.bean.BindType;
import org.jsmpp.bean.DataSm;
import org.jsmpp.bean.DeliverSm;
import org.jsmpp.bean.ESMClass;
import org.jsmpp.bean.NumberingPlanIndicator;
import org.jsmpp.bean.OptionalParameter;
import org.jsmpp.bean.RawDataCoding;
import org.jsmpp.bean.RegisteredDelivery;
import org.jsmpp.bean.TypeOfNumber;
import org.jsmpp.extra.ProcessRequestException;
import org.jsmpp.session.BindParameter;
import org.jsmpp.session.DataSmResult;
import org.jsmpp.session.MessageReceiverListener;
import org.jsmpp.session.SMPPSession;
import org.jsmpp.session.Session;

/** A jsmpp client bound to the simulator that keeps the receipts it got and can refuse the next few. */
final class TestEsme implements AutoCloseable {
    static final String SOURCE = "SENDLOG";
    static final String DEST = "447700900123";

    final SMPPSession session;
    /** Every deliver_sm that reached the listener, refused ones included, in arrival order. */
    final List<DeliverSm> deliveries = new CopyOnWriteArrayList<>();
    /** The deliver_sm this client answered ESME_ROK. */
    final List<DeliverSm> acknowledged = new CopyOnWriteArrayList<>();
    /** How many of the next deliveries to refuse with ESME_RSYSERR. */
    final AtomicInteger refuseNext = new AtomicInteger();

    private TestEsme(SMPPSession session) {
        this.session = session;
    }

    static TestEsme bind(SmscSimulator smsc) throws IOException {
        return bind(smsc, BindType.BIND_TRX, "sendlog", "secret", 2_000);
    }

    /**
     * @param transactionTimerMs how long the client waits for a response
     */
    static TestEsme bind(SmscSimulator smsc, BindType type, String systemId, String password, long transactionTimerMs)
            throws IOException {
        return bind(smsc, type, systemId, password, transactionTimerMs, session -> {});
    }

    /** @param setup adjusts the session before it connects (timers) */
    static TestEsme bind(
            SmscSimulator smsc,
            BindType type,
            String systemId,
            String password,
            long transactionTimerMs,
            Consumer<SMPPSession> setup)
            throws IOException {
        SMPPSession session = new SMPPSession();
        setup.accept(session);
        // One PDU thread: a deliver_sm is handled before a submit_sm_resp that came after it.
        session.setPduProcessorDegree(1);
        session.setTransactionTimer(transactionTimerMs);
        TestEsme esme = new TestEsme(session);
        session.setMessageReceiverListener(esme.listener());
        session.connectAndBind(
                "127.0.0.1",
                smsc.port(),
                new BindParameter(
                        type, systemId, password, "", TypeOfNumber.UNKNOWN, NumberingPlanIndicator.UNKNOWN, null),
                5_000);
        return esme;
    }

    private MessageReceiverListener listener() {
        return new MessageReceiverListener() {
            @Override
            public void onAcceptDeliverSm(DeliverSm deliverSm) throws ProcessRequestException {
                deliveries.add(deliverSm);
                if (refuseNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                    throw new ProcessRequestException("not stored yet", SMPPConstant.STAT_ESME_RSYSERR);
                }
                acknowledged.add(deliverSm);
            }

            @Override
            public void onAcceptAlertNotification(AlertNotification alertNotification) {}

            @Override
            public DataSmResult onAcceptDataSm(DataSm dataSm, Session source) throws ProcessRequestException {
                throw new ProcessRequestException("no data_sm", SMPPConstant.STAT_ESME_RINVCMDID);
            }
        };
    }

    /** Submits text in the GSM default alphabet, asking for a receipt; returns the message_id. */
    String submitText(String text) throws Exception {
        return submit((byte) 0, (byte) 0, GsmAlphabet.encode(text));
    }

    String submit(byte dataCoding, byte esmClass, byte[] shortMessage, OptionalParameter... tlvs) throws Exception {
        return session.submitShortMessage(
                        "",
                        TypeOfNumber.ALPHANUMERIC,
                        NumberingPlanIndicator.UNKNOWN,
                        SOURCE,
                        TypeOfNumber.INTERNATIONAL,
                        NumberingPlanIndicator.ISDN,
                        DEST,
                        new ESMClass(esmClass),
                        (byte) 0,
                        (byte) 1,
                        null,
                        "000001000000000R",
                        new RegisteredDelivery(1),
                        (byte) 0,
                        new RawDataCoding(dataCoding),
                        (byte) 0,
                        shortMessage,
                        tlvs)
                .getMessageId();
    }

    static String text(DeliverSm receipt) {
        return new String(receipt.getShortMessage(), StandardCharsets.US_ASCII);
    }

    static String receiptedId(DeliverSm receipt) {
        return ((OptionalParameter.COctetString)
                        receipt.getOptionalParameter(OptionalParameter.Tag.RECEIPTED_MESSAGE_ID))
                .getValueAsString();
    }

    static byte messageState(DeliverSm receipt) {
        return ((OptionalParameter.Byte) receipt.getOptionalParameter(OptionalParameter.Tag.MESSAGE_STATE)).getValue();
    }

    @Override
    public void close() {
        session.close();
    }
}
