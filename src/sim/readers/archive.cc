#include "sim/readers/archive.h"

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdint>
#include <optional>

namespace squeeze {
namespace {

constexpr size_t kBlock = 512;
// A guard against decompression bombs: traces are far smaller.
constexpr size_t kMaxGunzipBytes = size_t{4} << 30;

std::string Field(std::string_view header, size_t offset, size_t size) {
  std::string_view f = header.substr(offset, size);
  return std::string(f.substr(0, std::min(f.find('\0'), f.size())));
}

// An octal number field (spaces and NULs around it), or GNU base-256 when the top bit is set.
std::optional<uint64_t> Number(std::string_view header, size_t offset, size_t size) {
  std::string_view f = header.substr(offset, size);
  const auto first = static_cast<unsigned char>(f[0]);
  if (first & 0x80) {
    uint64_t v = first & 0x7f;
    for (size_t i = 1; i < f.size(); ++i) {
      if (v > (UINT64_MAX >> 8)) return std::nullopt;
      v = (v << 8) | static_cast<unsigned char>(f[i]);
    }
    return v;
  }
  size_t i = 0;
  while (i < f.size() && f[i] == ' ') ++i;
  uint64_t v = 0;
  bool any = false;
  for (; i < f.size() && f[i] >= '0' && f[i] <= '7'; ++i) {
    if (v > (UINT64_MAX >> 3)) return std::nullopt;
    v = v * 8 + static_cast<uint64_t>(f[i] - '0');
    any = true;
  }
  for (; i < f.size(); ++i) {
    if (f[i] != ' ' && f[i] != '\0') return std::nullopt;
  }
  if (!any) return std::nullopt;
  return v;
}

bool AllZero(std::string_view block) {
  return std::all_of(block.begin(), block.end(), [](char c) { return c == '\0'; });
}

bool ChecksumMatches(std::string_view header) {
  const std::optional<uint64_t> stored = Number(header, 148, 8);
  if (!stored) return false;
  uint64_t unsigned_sum = 0;
  int64_t signed_sum = 0;
  for (size_t i = 0; i < kBlock; ++i) {
    const bool in_field = i >= 148 && i < 156;
    unsigned_sum += in_field ? ' ' : static_cast<unsigned char>(header[i]);
    signed_sum += in_field ? ' ' : static_cast<signed char>(header[i]);
  }
  return *stored == unsigned_sum || static_cast<int64_t>(*stored) == signed_sum;
}

// The "path" record of a pax extended header ("LEN path=VALUE\n" records), if any.
std::optional<std::string> PaxPath(std::string_view data) {
  while (!data.empty()) {
    const size_t space = data.find(' ');
    if (space == std::string_view::npos) return std::nullopt;
    size_t len = 0;
    for (size_t i = 0; i < space; ++i) {
      if (!std::isdigit(static_cast<unsigned char>(data[i]))) return std::nullopt;
      len = len * 10 + static_cast<size_t>(data[i] - '0');
    }
    if (len <= space + 1 || len > data.size()) return std::nullopt;
    std::string_view record = data.substr(space + 1, len - space - 2);  // no trailing '\n'
    if (record.substr(0, 5) == "path=") return std::string(record.substr(5));
    data.remove_prefix(len);
  }
  return std::nullopt;
}

bool EndsWithNoCase(std::string_view s, std::string_view suffix) {
  if (s.size() < suffix.size()) return false;
  return std::equal(suffix.begin(), suffix.end(), s.end() - suffix.size(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) ==
           std::tolower(static_cast<unsigned char>(b));
  });
}

}  // namespace

bool IsGzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

bool IsTar(std::string_view bytes) {
  return bytes.size() >= kBlock && bytes[0] != '\0' && ChecksumMatches(bytes.substr(0, kBlock));
}

Result<std::string> Gunzip(std::string_view bytes, const std::string& source) {
  if (bytes.size() > UINT_MAX) return Status::Error(source + ": gzip file too large");
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) {
    return Status::Error(source + ": cannot start the gzip decoder");
  }
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  zs.avail_in = static_cast<uInt>(bytes.size());
  std::string out;
  char buffer[1 << 16];
  Status error = Status::Ok();
  for (;;) {
    zs.next_out = reinterpret_cast<Bytef*>(buffer);
    zs.avail_out = sizeof(buffer);
    const int ret = inflate(&zs, Z_NO_FLUSH);
    out.append(buffer, sizeof(buffer) - zs.avail_out);
    if (out.size() > kMaxGunzipBytes) {
      error = Status::Error(source + ": gzip data decompresses to more than 4 GiB");
      break;
    }
    if (ret == Z_STREAM_END) {
      std::string_view rest(reinterpret_cast<const char*>(zs.next_in), zs.avail_in);
      if (IsGzip(rest)) {  // another member follows
        inflateReset(&zs);
        continue;
      }
      if (!AllZero(rest)) {
        error = Status::Error(source + ": " + std::to_string(rest.size()) +
                              " bytes of garbage after the gzip data");
      }
      break;
    }
    if (ret == Z_OK) continue;
    if (ret == Z_BUF_ERROR && zs.avail_in == 0) {
      error = Status::Error(source + ": truncated gzip data (it ends after " +
                            std::to_string(bytes.size()) + " bytes, in the middle of the stream)");
    } else {
      error = Status::Error(source + ": corrupt gzip data at byte " +
                            std::to_string(bytes.size() - zs.avail_in) + ": " +
                            (zs.msg != nullptr ? zs.msg : "inflate error " + std::to_string(ret)));
    }
    break;
  }
  inflateEnd(&zs);
  if (!error.ok()) return error;
  return out;
}

Result<TarFile> FindTarFile(std::string_view tar, std::string_view suffix,
                            const std::string& source) {
  std::optional<std::string> long_name;  // from a GNU 'L' or a pax 'x' entry, for the next file
  size_t offset = 0;
  while (offset < tar.size()) {
    if (tar.size() - offset < kBlock) {
      return Status::Error(source + ": truncated tar archive: a header at byte " +
                           std::to_string(offset) + " has only " +
                           std::to_string(tar.size() - offset) + " of its 512 bytes");
    }
    const std::string_view header = tar.substr(offset, kBlock);
    if (AllZero(header)) break;  // the end-of-archive blocks
    if (!ChecksumMatches(header)) {
      return Status::Error(source + ": corrupt tar archive: the header at byte " +
                           std::to_string(offset) + " has a wrong checksum");
    }
    std::string name = Field(header, 0, 100);
    const std::string prefix = Field(header, 345, 155);
    if (header.substr(257, 5) == "ustar" && !prefix.empty()) name = prefix + "/" + name;
    const std::optional<uint64_t> size = Number(header, 124, 12);
    if (!size) {
      return Status::Error(source + ": corrupt tar archive: the header of '" + name +
                           "' at byte " + std::to_string(offset) + " has no valid size");
    }
    const size_t data_at = offset + kBlock;
    if (*size > tar.size() - data_at) {
      return Status::Error(source + ": truncated tar archive: '" + name + "' needs " +
                           std::to_string(*size) + " bytes, " +
                           std::to_string(tar.size() - data_at) + " are left");
    }
    const std::string_view data = tar.substr(data_at, *size);
    const char type = header[156];
    if (type == 'L') {
      long_name = std::string(data.substr(0, std::min(data.find('\0'), data.size())));
    } else if (type == 'x') {
      long_name = PaxPath(data);
    } else if (type == '0' || type == '\0' || type == '7') {
      if (long_name) name = *long_name;
      if (EndsWithNoCase(name, suffix)) return TarFile{name, data};
      long_name.reset();
    } else if (type != 'g') {
      long_name.reset();
    }
    offset = data_at + static_cast<size_t>((*size + kBlock - 1) / kBlock * kBlock);
  }
  return Status::Error(source + ": the tar archive holds no file whose name ends in '" +
                       std::string(suffix) + "'");
}

}  // namespace squeeze
