#include "railyard/bootstrap/detail/root_wire.h"

#include <fmt/format.h>

#include "railyard/common/detail/byte_codec.h"

namespace railyard::bootstrap::detail {
namespace {

void put_blob(ByteWriter& writer, std::span<const std::byte> blob) {
  writer.u32(blob.size());
  writer.bytes(blob);
}

Blob take_blob(ByteReader& reader) {
  const auto data = reader.bytes(reader.u32());
  return {data.begin(), data.end()};
}

void put_blobs(ByteWriter& writer, const std::vector<Blob>& blobs) {
  writer.u32(blobs.size());
  for (const Blob& blob : blobs) {
    put_blob(writer, blob);
  }
}

bool take_blobs(ByteReader& reader, std::vector<Blob>& out, std::string& error) {
  const std::uint32_t count = reader.u32();
  // Each entry takes at least its 4-byte length: a count beyond that is a
  // lie, not an allocation to attempt.
  if (count > reader.remaining() / 4) {
    error = fmt::format("announces {} entries in {} bytes", count, reader.remaining());
    return false;
  }
  out.clear();
  out.reserve(count);
  for (std::uint32_t i = 0; i < count && !reader.failed(); ++i) {
    out.push_back(take_blob(reader));
  }
  return true;
}

std::string cut(std::string_view text) { return std::string(text.substr(0, kMaxReason)); }

// Whether the reader consumed exactly its input.
bool finished(const ByteReader& reader, std::string& error) {
  if (reader.failed()) {
    error = "message ends early";
    return false;
  }
  if (reader.remaining() != 0) {
    error = fmt::format("{} unexpected bytes after the message", reader.remaining());
    return false;
  }
  return true;
}

template <typename Write>
Blob build(Write&& write) {
  Blob out;
  ByteWriter writer(out);
  write(writer);
  return out;
}

}  // namespace

const char* to_string(RootMessage type) noexcept {
  switch (type) {
    case RootMessage::kHello:
      return "hello";
    case RootMessage::kRefuse:
      return "refuse";
    case RootMessage::kTable:
      return "table";
    case RootMessage::kSet:
      return "set";
    case RootMessage::kGet:
      return "get";
    case RootMessage::kValue:
      return "value";
    case RootMessage::kGather:
      return "gather";
    case RootMessage::kGathered:
      return "gathered";
    case RootMessage::kAbort:
      return "abort";
    case RootMessage::kFailed:
      return "failed";
    case RootMessage::kBye:
      return "bye";
  }
  return "unknown";
}

Blob encode(const Hello& message) {
  return build([&](ByteWriter& writer) {
    writer.u32(kHelloMagic);
    writer.u16(message.version);
    writer.u16(0);
    writer.u32(message.rank);
    writer.u32(message.size);
    writer.string16(message.key);
    put_blob(writer, message.descriptor);
  });
}

bool decode(std::span<const std::byte> in, Hello& out, std::string& error) {
  ByteReader reader(in);
  const std::uint32_t magic = reader.u32();
  if (!reader.failed() && magic != kHelloMagic) {
    error = fmt::format("starts with {:#010x}, expected {:#010x}: not a railyard bootstrap hello",
                        magic, kHelloMagic);
    return false;
  }
  out.version = reader.u16();
  (void)reader.u16();
  if (!reader.failed() && out.version != kRootProtocolVersion) {
    // A later version may lay the rest out differently: stop here.
    return true;
  }
  out.rank = reader.u32();
  out.size = reader.u32();
  out.key = reader.string16();
  out.descriptor = take_blob(reader);
  return finished(reader, error);
}

Blob encode(const Refuse& message) {
  return build([&](ByteWriter& writer) {
    writer.u16(static_cast<std::uint16_t>(message.reason));
    writer.string16(cut(message.message));
  });
}

bool decode(std::span<const std::byte> in, Refuse& out, std::string& error) {
  ByteReader reader(in);
  out.reason = static_cast<Refusal>(reader.u16());
  out.message = reader.string16();
  return finished(reader, error);
}

Blob encode(const Table& message) {
  return build([&](ByteWriter& writer) { put_blobs(writer, message.descriptors); });
}

bool decode(std::span<const std::byte> in, Table& out, std::string& error) {
  ByteReader reader(in);
  return take_blobs(reader, out.descriptors, error) && finished(reader, error);
}

Blob encode(const SetKey& message) {
  return build([&](ByteWriter& writer) {
    writer.string16(message.key);
    put_blob(writer, message.value);
  });
}

bool decode(std::span<const std::byte> in, SetKey& out, std::string& error) {
  ByteReader reader(in);
  out.key = reader.string16();
  out.value = take_blob(reader);
  return finished(reader, error);
}

Blob encode(const GetKey& message) {
  return build([&](ByteWriter& writer) {
    writer.u64(message.id);
    writer.string16(message.key);
  });
}

bool decode(std::span<const std::byte> in, GetKey& out, std::string& error) {
  ByteReader reader(in);
  out.id = reader.u64();
  out.key = reader.string16();
  return finished(reader, error);
}

Blob encode(const Value& message) {
  return build([&](ByteWriter& writer) {
    writer.u64(message.id);
    put_blob(writer, message.value);
  });
}

bool decode(std::span<const std::byte> in, Value& out, std::string& error) {
  ByteReader reader(in);
  out.id = reader.u64();
  out.value = take_blob(reader);
  return finished(reader, error);
}

Blob encode(const Gather& message) {
  return build([&](ByteWriter& writer) {
    writer.u64(message.seq);
    writer.u32(message.root);
    put_blob(writer, message.blob);
  });
}

bool decode(std::span<const std::byte> in, Gather& out, std::string& error) {
  ByteReader reader(in);
  out.seq = reader.u64();
  out.root = reader.u32();
  out.blob = take_blob(reader);
  return finished(reader, error);
}

Blob encode(const Gathered& message) {
  return build([&](ByteWriter& writer) {
    writer.u64(message.seq);
    put_blobs(writer, message.blobs);
  });
}

bool decode(std::span<const std::byte> in, Gathered& out, std::string& error) {
  ByteReader reader(in);
  out.seq = reader.u64();
  return take_blobs(reader, out.blobs, error) && finished(reader, error);
}

Blob encode(const Abort& message) {
  return build([&](ByteWriter& writer) {
    writer.u32(message.rank);
    writer.u32(static_cast<std::uint32_t>(message.code));
    writer.string16(cut(message.reason));
  });
}

bool decode(std::span<const std::byte> in, Abort& out, std::string& error) {
  ByteReader reader(in);
  out.rank = reader.u32();
  out.code = static_cast<std::int32_t>(reader.u32());
  out.reason = reader.string16();
  return finished(reader, error);
}

Blob encode(const Failed& message) {
  return build([&](ByteWriter& writer) {
    writer.u32(message.rank);
    writer.u16(static_cast<std::uint16_t>(message.kind));
    writer.string16(cut(message.reason));
  });
}

bool decode(std::span<const std::byte> in, Failed& out, std::string& error) {
  ByteReader reader(in);
  out.rank = reader.u32();
  out.kind = static_cast<FailureKind>(reader.u16());
  out.reason = reader.string16();
  return finished(reader, error);
}

}  // namespace railyard::bootstrap::detail
