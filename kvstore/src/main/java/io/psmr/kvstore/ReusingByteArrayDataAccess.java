package io.psmr.kvstore;

import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.bytes.RandomDataInput;
import net.openhft.chronicle.hash.AbstractData;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.hash.serialization.DataAccess;
import net.openhft.chronicle.wire.WireIn;
import net.openhft.chronicle.wire.WireOut;

/**
 * How {@link ChronicleKvStore}'s Chronicle Map reads a {@code byte[]} key or value handed to it:
 * like Chronicle's own {@code ByteArrayDataAccess}, but without allocating. That one wraps every
 * array in a new reference-counted {@code HeapBytesStore} (about 190 bytes per key and per value);
 * this one copies the array into a heap {@code BytesStore} it keeps, grown to the largest array seen
 * (so at most {@link KvLimits}' key or value size).
 *
 * <p><b>Threads.</b> Chronicle Map gives every query context (one per thread, and per nesting level)
 * its own {@link #copy()}, so an instance is only ever used by one thread at a time. Public only
 * because Chronicle Map records the class in a persisted map's header and instantiates it on reopening;
 * not meant for other use.
 */
public final class ReusingByteArrayDataAccess extends AbstractData<byte[]> implements DataAccess<byte[]> {

    /** Smallest scratch store, in bytes. */
    private static final int MIN_SCRATCH = 64;

    private transient BytesStore<?, byte[]> scratch;
    private transient byte[] array;

    @Override
    public RandomDataInput bytes() {
        return scratch;
    }

    @Override
    public long offset() {
        return 0;
    }

    @Override
    public long size() {
        return array.length;
    }

    @Override
    public byte[] get() {
        return array;
    }

    @Override
    public byte[] getUsing(byte[] using) {
        if (using == null || using.length != array.length) {
            using = new byte[array.length];
        }
        System.arraycopy(array, 0, using, 0, array.length);
        return using;
    }

    @Override
    public Data<byte[]> getData(byte[] instance) {
        if (scratch == null || scratch.capacity() < instance.length) {
            scratch = BytesStore.wrap(new byte[grown(instance.length)]);
        }
        scratch.write(0, instance, 0, instance.length);
        array = instance;
        return this;
    }

    private static int grown(int length) {
        if (length <= MIN_SCRATCH) {
            return MIN_SCRATCH;
        }
        return length > (1 << 30) ? length : Integer.highestOneBit(length - 1) << 1;
    }

    @Override
    public void uninit() {
        array = null;
    }

    @Override
    public DataAccess<byte[]> copy() {
        return new ReusingByteArrayDataAccess();
    }

    @Override
    public void writeMarshallable(WireOut wireOut) {
        // no fields to write
    }

    @Override
    public void readMarshallable(WireIn wireIn) {
        scratch = null;
        array = null;
    }
}
