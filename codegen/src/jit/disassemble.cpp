#include "codegen/src/jit/disassemble.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <vector>

#include <fmt/format.h>
#include <llvm/MC/MCAsmInfo.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCDisassembler/MCDisassembler.h>
#include <llvm/MC/MCInst.h>
#include <llvm/MC/MCInstPrinter.h>
#include <llvm/MC/MCInstrInfo.h>
#include <llvm/MC/MCRegisterInfo.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/MCTargetOptions.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Triple.h>

#include <tensorjit/error.hpp>

namespace tensorjit::codegen {
namespace {

template <typename T>
T take_or_throw(llvm::Expected<T> value, std::string_view what) {
  if (!value)
    throw InternalError(
        fmt::format("disassembly: {}: {}", what, llvm::toString(value.takeError())));
  return std::move(*value);
}

// The MC objects one disassembly needs, built from the target registry.
struct Disassembler {
  std::unique_ptr<const llvm::MCRegisterInfo> registers;
  std::unique_ptr<const llvm::MCAsmInfo> asm_info;
  std::unique_ptr<const llvm::MCSubtargetInfo> subtarget;
  std::unique_ptr<const llvm::MCInstrInfo> instructions;
  std::unique_ptr<llvm::MCContext> context;
  std::unique_ptr<const llvm::MCDisassembler> decoder;
  std::unique_ptr<llvm::MCInstPrinter> printer;

  Disassembler(const std::string& triple_name, const std::string& cpu,
               const std::string& features) {
    std::string error;
    const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple_name, error);
    if (!target) throw InternalError("disassembly: no target for " + triple_name + ": " + error);
    const llvm::Triple triple(triple_name);
    llvm::MCTargetOptions options;
    registers.reset(target->createMCRegInfo(triple_name));
    if (registers) asm_info.reset(target->createMCAsmInfo(*registers, triple_name, options));
    subtarget.reset(target->createMCSubtargetInfo(triple_name, cpu, features));
    instructions.reset(target->createMCInstrInfo());
    if (!registers || !asm_info || !subtarget || !instructions)
      throw InternalError("disassembly: the target lacks MC support for " + triple_name);
    context =
        std::make_unique<llvm::MCContext>(triple, asm_info.get(), registers.get(), subtarget.get());
    decoder.reset(target->createMCDisassembler(*subtarget, *context));
    printer.reset(target->createMCInstPrinter(triple, /*SyntaxVariant=*/0, *asm_info, *instructions,
                                              *registers));
    if (!decoder || !printer)
      throw InternalError("disassembly: no disassembler linked for " + triple_name);
    // Branch targets as offsets in the section, matching the offsets printed on each line.
    printer->setPrintBranchImmAsAddress(true);
    printer->setPrintImmHex(true);
  }
};

// Symbols naming offsets in `section`, by offset.
std::multimap<uint64_t, std::string> section_symbols(const llvm::object::ObjectFile& object,
                                                     const llvm::object::SectionRef& section) {
  std::multimap<uint64_t, std::string> symbols;
  for (const auto& symbol : object.symbols()) {
    auto symbol_section = symbol.getSection();
    if (!symbol_section) {
      llvm::consumeError(symbol_section.takeError());
      continue;
    }
    if (*symbol_section != section) continue;
    auto name = symbol.getName();
    auto address = symbol.getAddress();
    if (!name || !address || name->empty()) {
      if (!name) llvm::consumeError(name.takeError());
      if (!address) llvm::consumeError(address.takeError());
      continue;
    }
    symbols.emplace(*address - section.getAddress(), name->str());
  }
  return symbols;
}

// Relocation targets inside `section` ("constant pool", callees), by offset.
std::map<uint64_t, std::string> section_relocations(const llvm::object::ObjectFile& object,
                                                    const llvm::object::SectionRef& section) {
  std::map<uint64_t, std::string> relocations;
  for (const auto& candidate : object.sections()) {
    auto relocated = candidate.getRelocatedSection();
    if (!relocated) {
      llvm::consumeError(relocated.takeError());
      continue;
    }
    if (*relocated != object.section_end() && **relocated == section) {
      for (const auto& relocation : candidate.relocations()) {
        std::string target = "?";
        auto symbol = relocation.getSymbol();
        if (symbol != object.symbol_end()) {
          if (auto name = symbol->getName(); name && !name->empty()) {
            target = name->str();
          } else {
            if (!name) llvm::consumeError(name.takeError());
            if (auto symbol_section = symbol->getSection(); symbol_section) {
              if (*symbol_section != object.section_end())
                if (auto section_name = (*symbol_section)->getName()) target = section_name->str();
            } else {
              llvm::consumeError(symbol_section.takeError());
            }
          }
        }
        relocations[relocation.getOffset()] = target;
      }
    }
  }
  return relocations;
}

}  // namespace

std::string disassemble_object(std::string_view object_bytes, const std::string& triple,
                               const std::string& cpu, const std::string& features) {
  const auto buffer = llvm::MemoryBufferRef(
      llvm::StringRef(object_bytes.data(), object_bytes.size()), "kernel object");
  auto object = take_or_throw(llvm::object::ObjectFile::createObjectFile(buffer), "reading object");
  Disassembler disassembler(triple, cpu, features);

  std::string text;
  llvm::raw_string_ostream out(text);
  for (const auto& section : object->sections()) {
    if (!section.isText() || section.getSize() == 0) continue;
    const auto section_name = take_or_throw(section.getName(), "section name");
    const auto contents = take_or_throw(section.getContents(), "section contents");
    const auto symbols = section_symbols(*object, section);
    const auto relocations = section_relocations(*object, section);
    const llvm::ArrayRef<uint8_t> bytes(reinterpret_cast<const uint8_t*>(contents.data()),
                                        contents.size());
    out << "\t.section\t" << section_name << "\n";
    uint64_t offset = 0;
    while (offset < bytes.size()) {
      for (auto [at, end] = symbols.equal_range(offset); at != end; ++at)
        out << at->second << ":\n";
      llvm::MCInst instruction;
      uint64_t size = 0;
      const auto status = disassembler.decoder->getInstruction(
          instruction, size, bytes.slice(offset), offset, llvm::nulls());
      if (status != llvm::MCDisassembler::Success || size == 0) {
        out << fmt::format("\t.byte\t0x{:02x}\t# offset {:#x}: not decoded\n", bytes[offset],
                           offset);
        offset += 1;
        continue;
      }
      out << fmt::format("{:6x}:", offset);
      // x86 branch immediates are relative to the end of the instruction, and the printer adds
      // the address it is given: give it the end so that targets print as section offsets.
      disassembler.printer->printInst(&instruction, offset + size, "", *disassembler.subtarget,
                                      out);
      const auto relocation = relocations.lower_bound(offset);
      if (relocation != relocations.end() && relocation->first < offset + size)
        out << "\t# " << relocation->second;
      out << "\n";
      offset += size;
    }
  }
  out.flush();
  return text;
}

}  // namespace tensorjit::codegen
